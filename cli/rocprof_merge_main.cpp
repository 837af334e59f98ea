// rocprof-merge: turns a traced job's rank files into one timeline on the reference rank's
// clock, and prints a summary. Usage: rocprof-merge DIR|FILES... -o OUTPUT.pftrace [options]
#include <hdf5.h>
#include <malloc.h>
#include <CLI/CLI.hpp>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "cli/help/manuals.hpp"
#include "cli/help/usage_line.hpp"
#include "cli/merge/progress_bar.hpp"
#include "merge/input/check_helpers.hpp"
#include "merge/parallel/merge_group.hpp"
#include "merge/pipeline/merge_pipeline.hpp"

namespace {

// The allocator's arenas of a merge process (see main).
constexpr int kMallocArenas = 4;

}  // namespace

int run(int argc, char** argv) {
  CLI::App app{"rocprof-merge: one timeline from a traced job's rank files.", "rocprof-merge"};
  rocprof::cli::set_usage_line(app, "rocprof-merge DIR|FILES... -o OUTPUT.pftrace [options]");
  rocprof::merge::MergeOptions options;
  bool no_summary = false;
  bool no_correction = false;
  app.add_option("inputs", options.inputs, "a directory of rank files, or rank files")->required();
  app.add_option("-o,--output", options.output,
                 fmt::format("the timeline, its format by its extension: {}",
                             rocprof::merge::sinks().known()))
      ->required();
  app.add_flag("--allow-missing", options.allow_missing,
               "merge even if some traced ranks of the job have no file (ranks the run did not "
               "trace, rocprof-mpi --mpi-ranks, need no option)");
  app.add_flag("--skip-bad", options.skip_bad,
               "leave out files that cannot be read, and say which (every chunk of every file "
               "is read at the check, so that a damaged one is found before merging)");
  app.add_option(
      "--summary-csv", options.csv_prefix,
      "also write the summary as PREFIX_mpi.csv, PREFIX_regions.csv, PREFIX_kernels.csv, "
      "PREFIX_counters.csv, PREFIX_waits.csv, PREFIX_critical_path.csv, PREFIX_imbalance.csv");
  app.add_option("--report", options.report,
                 "also write a self-contained HTML report of the job (docs/ANALYSIS.md)");
  app.add_flag("--no-summary", no_summary, "do not print the summary");
  bool no_analysis = false;
  app.add_flag("--no-analysis", no_analysis,
               "leave out the wait states and the critical path (found by default, for the "
               "summary, its CSV files, the .pftrace and .h5 timelines and the report: "
               "docs/ANALYSIS.md)");
  app.add_option("--window", options.window,
                 "analyse only this part of the run: a time range from the job's start "
                 "('2.5s-10s') or a region's instances ('iteration#10-#49', from 0): "
                 "docs/ANALYSIS.md")
      ->type_name("RANGE");
  bool wait_states = false;  // the default since the analysis is spread over the processes
  app.add_flag("--wait-states", wait_states, "the default; kept for older command lines")
      ->excludes("--no-analysis");
  app.add_flag("--no-causality-correction", no_correction,
               "count receives that end before their send began, but do not correct them");
  app.add_flag("-q,--quiet", options.quiet, "print nothing but errors");
  app.add_option("--scratch", options.scratch,
                 "in parallel, each merge process writes its part of a .pftrace or .json here "
                 "(a directory of its node's own, such as node-local disk) and copies it into "
                 "the output itself; by default the parts go beside the output")
      ->type_name("DIR");
  app.add_flag("--h5-parts,!--no-h5-parts", options.h5_parts,
               "in parallel, a .h5 is written as one file per merge process in OUTPUT.parts/, "
               "which the output links (HDF5 virtual datasets; the default: keep the directory "
               "beside the output); --no-h5-parts writes one self-contained file, every row "
               "through the first process (slower)");
  app.add_flag("--timings", options.timings,
               "print how long each phase took, on stderr (in parallel, every merge process's)");
  app.set_version_flag("--version", "rocprof-merge 0.1.0");
  app.footer(
      "In parallel (many ranks): srun -n K -c 4 rocprof-merge ..., or mpirun -np K --bind-to "
      "none rocprof-merge ...\n"
      "Environment: ROCPROF_MERGE_DIRECT_IO=auto|on|off (direct I/O for .pftrace past 64 MiB), "
      "ROCPROF_MERGE_SEND_THREAD=auto|off (in parallel, a thread of its own sends .h5 chunks to "
      "the first process), ROCPROF_MERGE_CHECK_HELPERS=auto|N (processes that check rank files "
      "beside each merge process), ROCPROF_MERGE_ENCODE_HELPERS=auto|N (threads of each merge "
      "process that encode ahead), ROCPROF_MERGE_ONE_NODE_MPI=auto|off (on one node, Open MPI's "
      "network-only layer is left out), ROCPROF_MERGE_PROCESSES=auto|all|N (how many of the "
      "launched processes merge: auto takes fewer for a small job).\nExit status: 0 merged, 1 "
      "bad input or a failed write, 2 bad usage or an output that cannot be written (told "
      "before any work).\nMore: " +
      rocprof::cli::manual_path("ROCPROF_MERGE.md"));
  // The command line is read before MPI starts, so that a parallel merge can check its share
  // of the rank files while MPI starts; problems are told once it has, by the first process.
  std::exception_ptr parse_error;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError&) {
    parse_error = std::current_exception();
  }
  options.print_summary = !no_summary;
  options.correct_causality = !no_correction;
  options.analyse = !no_analysis;
  rocprof::merge::MergePipeline pipeline(std::move(options), parse_error == nullptr);
  rocprof::merge::MergeGroup group(&argc, &argv);
  if (parse_error != nullptr) {
    try {
      std::rethrow_exception(parse_error);
    } catch (const CLI::ParseError& error) {
      // --help and --version print as CLI11 does; a usage error is one line of ours, exit 2
      // (CLI11's own codes, 106 and up, and its unprefixed text, said nothing of that).
      if (error.get_exit_code() == 0) return group.leader() ? app.exit(error) : 0;
      if (group.leader())
        fmt::print(stderr, "rocprof-merge: {} (rocprof-merge --help lists the options)\n",
                   error.what());
      return 2;
    }
  }
  rocprof::cli::ProgressBar bar(!pipeline.options().quiet && group.leader());
  return pipeline.run(group, bar);
}

int main(int argc, char** argv) {
  // HDF5 closes what is still open when the process exits. An output that failed to close (a
  // full file system) is already reported and removed by then, and HDF5 1.10 crashes closing
  // it again: every file is closed here before exit, so nothing is left for that clean-up.
  H5dont_atexit();
  // Past a file-size limit (`ulimit -f`) a write fails with EFBIG instead of the process
  // dying of SIGXFSZ: the failure is then reported, and the staged output removed, as for a
  // full disk.
  std::signal(SIGXFSZ, SIG_IGN);
  // glibc gives each thread that allocates at once an arena of its own, up to 8 per CPU, and
  // keeps what an arena freed: a merge of one process on many CPUs (reading, watching and
  // analysing threads) held much memory that way. A few arenas cost no time measured
  // (docs/PERFORMANCE.md); MALLOC_ARENA_MAX, when set, still decides.
  if (std::getenv("MALLOC_ARENA_MAX") == nullptr)  // NOLINT(concurrency-mt-unsafe): no threads yet
    mallopt(M_ARENA_MAX, kMallocArenas);           // NOLINT(concurrency-mt-unsafe)
  // A check helper of another rocprof-merge (merge/input/check_helpers.hpp): no MPI, no
  // command line of its own.
  if ((argc == 2 || argc == 3) && std::string_view(argv[1]) == rocprof::merge::kCheckHelperArgument)
    return rocprof::merge::run_check_helper(argc == 3 && std::string_view(argv[2]) ==
                                                             rocprof::merge::kEveryChunkArgument);
  try {
    return run(argc, argv);
  } catch (const std::exception& error) {
    fmt::print(stderr, "rocprof-merge: {}\n", error.what());
    return 1;
  }
}
