// rocprof-merge: turns a traced job's rank files into one timeline on the reference rank's
// clock, and prints a summary. Usage: rocprof-merge DIR|FILES... -o OUTPUT [options]
#include <hdf5.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "cli/merge/cpu_budget.hpp"
#include "cli/merge/partial_output.hpp"
#include "cli/merge/phase_timings.hpp"
#include "cli/merge/progress_bar.hpp"
#include "merge/causality/messages.hpp"
#include "merge/causality/spill_ahead.hpp"
#include "merge/events/aligned_rank.hpp"
#include "merge/export/chrome_json.hpp"
#include "merge/export/encode_ahead.hpp"
#include "merge/export/merged_hdf5.hpp"
#include "merge/export/otf2_archive.hpp"
#include "merge/export/perfetto_trace.hpp"
#include "merge/files/block_file.hpp"
#include "merge/files/exclusive_file.hpp"
#include "merge/files/output_format.hpp"
#include "merge/files/staged_output.hpp"
#include "merge/input/check_helpers.hpp"
#include "merge/input/input_health.hpp"
#include "merge/input/rank_set.hpp"
#include "merge/parallel/early_check.hpp"
#include "merge/parallel/merge_group.hpp"
#include "merge/parallel/mpi_start.hpp"
#include "merge/parallel/shared_check.hpp"
#include "merge/summary/summary.hpp"

namespace {

namespace fs = std::filesystem;

// Why `written` (the output, or a summary CSV file) could not be written, or empty. It must
// not be one of `rank_files` either (an input named again as the output: merging would
// truncate it before reading it).
std::string file_problem(const std::string& written, const std::vector<std::string>& rank_files) {
  const bool an_input = std::any_of(rank_files.begin(), rank_files.end(), [&](const auto& file) {
    std::error_code ignored;
    return fs::equivalent(written, file, ignored);
  });
  if (an_input)
    return fmt::format("cannot write {}: it is one of the rank files to merge", written);
  const fs::path path(written);
  const fs::path directory = path.has_parent_path() ? path.parent_path() : fs::path(".");
  std::error_code code;
  if (!fs::is_directory(directory, code))
    return fmt::format("cannot write {}: directory {} does not exist", written, directory.string());
  if (::access(directory.c_str(), W_OK) != 0)
    return fmt::format("cannot write {}: directory {} is not writable", written,
                       directory.string());
  if (fs::is_directory(path, code))
    return fmt::format("cannot write {}: a directory has that name", written);
  if (fs::exists(path, code) && ::access(path.c_str(), W_OK) != 0)
    return fmt::format("cannot write {}: the file is not writable", written);
  return {};
}

// The output and the summary's CSV files must be writable before any work is done (a long
// merge must not fail at the end), and none may be one of the rank files.
std::string check_writable(const std::string& output, const std::vector<std::string>& inputs,
                           const std::string& csv_prefix) {
  std::vector<std::string> written = {output};
  if (!csv_prefix.empty())
    for (const char* table : {"_mpi.csv", "_regions.csv", "_kernels.csv"})
      written.push_back(csv_prefix + table);
  // The rank files, listed only if one of those exists already (missing inputs are told later).
  std::vector<std::string> rank_files;
  if (std::any_of(written.begin(), written.end(), [](const std::string& path) {
        std::error_code ignored;
        return fs::exists(path, ignored);
      })) {
    try {
      rank_files = rocprof::merge::RankSet::list(inputs);
    } catch (const std::exception&) {
    }
  }
  for (const std::string& path : written) {
    if (std::string problem = file_problem(path, rank_files); !problem.empty()) return problem;
    if (path == output &&
        rocprof::merge::output_format_of(output) == rocprof::merge::OutputFormat::kOtf2)
      if (std::string problem = rocprof::merge::otf2_archive_conflict(output); !problem.empty())
        return problem;
  }
  return {};
}

// ROCPROF_MERGE_DIRECT_IO, read once; `problem` says why if misspelt (the merge then stops
// before any work, once MPI has started).
rocprof::merge::BlockFile::DirectIo direct_io_setting(std::string& problem) {
  try {
    return rocprof::merge::BlockFile::direct_io_from_environment();
  } catch (const std::exception& error) {
    problem = error.what();
    return rocprof::merge::BlockFile::DirectIo::kAuto;
  }
}

// Ranks whose message endpoints are spilled at once, beside the check of the files: the
// merge's thread mostly waits for them once the files are checked. One per CPU, up to 8 (4
// left the check of 1024 small ranks slower on a 16-core machine with 2 merge processes).
std::size_t spill_helpers(std::size_t processes_on_node) {
  const unsigned cpus = rocprof::cli::cpus_per_process(static_cast<int>(processes_on_node));
  return std::clamp<std::size_t>(cpus, 1, 8);
}

// A count of helpers from the environment (`name`=auto|N, N up to 64): nullopt for auto (or
// unset). `problem` says why if misspelt (the merge then stops before any work, once MPI has
// started).
std::optional<std::size_t> helpers_asked(const char* name, std::string_view helpers,
                                         std::string& problem) {
  const char* value = std::getenv(name);  // NOLINT(concurrency-mt-unsafe)
  const std::string text = value == nullptr ? "auto" : value;
  if (text == "auto") return std::nullopt;
  std::size_t count = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), count);
  if (error != std::errc{} || end != text.data() + text.size() || count > 64) {
    if (problem.empty())
      problem =
          fmt::format("{} is '{}': give auto or a number of {} (0 to 64)", name, text, helpers);
    return 0;
  }
  return count;
}

// auto: one helper per CPU the process may count on, at most eight (the merge's thread only
// waits for their findings).
rocprof::merge::CheckHelperSetting check_helper_setting(std::optional<std::size_t> asked,
                                                        std::size_t processes_on_node) {
  rocprof::merge::CheckHelperSetting setting;
  std::error_code code;
  setting.executable = fs::read_symlink("/proc/self/exe", code).string();
  if (code) setting.executable.clear();  // none then: every file is checked here
  const unsigned cpus = rocprof::cli::cpus_per_process(static_cast<int>(processes_on_node));
  setting.count = asked ? *asked : std::clamp<std::size_t>(cpus, 1, 8);
  return setting;
}

}  // namespace

int run(int argc, char** argv) {
  CLI::App app{
      "rocprof-merge: one timeline from a traced job's rank files.\n"
      "Usage: rocprof-merge DIR|FILES... -o OUTPUT.json [options]",
      "rocprof-merge"};
  std::vector<std::string> inputs;
  std::string output;
  std::string csv_prefix;
  bool allow_missing = false;
  bool skip_bad = false;
  bool quiet = false;
  bool no_summary = false;
  bool no_correction = false;
  app.add_option("inputs", inputs, "a directory of rank files, or rank files")->required();
  app.add_option("-o,--output", output,
                 "the timeline: .pftrace (Perfetto), .otf2 (OTF2 archive: NAME.otf2, NAME.def, "
                 "NAME/), .h5 (merged tables for h5py/pandas) or .json (Chrome trace events)")
      ->required();
  app.add_flag("--allow-missing", allow_missing,
               "merge even if some traced ranks of the job have no file (ranks the run did not "
               "trace, rocprof-mpi --mpi-ranks, need no option)");
  app.add_flag("--skip-bad", skip_bad, "leave out files that cannot be read, and say which");
  app.add_option(
      "--summary-csv", csv_prefix,
      "also write the summary as PREFIX_mpi.csv, PREFIX_regions.csv, PREFIX_kernels.csv");
  app.add_flag("--no-summary", no_summary, "do not print the summary");
  app.add_flag("--no-causality-correction", no_correction,
               "count receives that end before their send began, but do not correct them");
  app.add_flag("-q,--quiet", quiet, "print nothing but errors");
  bool timings = false;
  app.add_flag("--timings", timings,
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
      "network-only layer is left out).\nExit status: 0 merged, 1 "
      "bad input or a failed write, 2 bad usage or an output that cannot be written (told "
      "before any work).\nMore: docs/ROCPROF_MERGE.md");
  // The command line is read before MPI starts, so that a parallel merge can check its share
  // of the rank files while MPI starts; problems are told once it has, by the first process.
  std::exception_ptr parse_error;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError&) {
    parse_error = std::current_exception();
  }
  using rocprof::merge::OutputFormat;
  const std::optional<OutputFormat> format = rocprof::merge::output_format_of(output);
  // Each process spills the message endpoints of the ranks whose files it checked, next to
  // the output; the first matches them all and hands out the corrections. Each rank starts
  // on a helper as soon as its file is checked, while the next files are checked.
  std::optional<rocprof::merge::EndpointSpill> spill;
  std::optional<rocprof::merge::SpillAhead> ahead;
  auto spill_early = [&ahead](std::int32_t rank, const rocprof::format::RankFileReader& reader) {
    ahead->offer(rank, reader);
  };
  auto stop_spilling = [&ahead] { ahead->abandon(); };
  std::string setting_problem;
  const rocprof::merge::BlockFile::DirectIo direct_io = direct_io_setting(setting_problem);
  // Check helpers: processes that check rank files beside each merge process.
  const std::optional<std::size_t> check_helpers =
      helpers_asked("ROCPROF_MERGE_CHECK_HELPERS", "helper processes", setting_problem);
  // Threads of each merge process that encode ranks ahead (.pftrace), or compress chunks and
  // make the next ranks ready (.h5).
  const std::optional<std::size_t> encode_helpers =
      helpers_asked("ROCPROF_MERGE_ENCODE_HELPERS", "helper threads", setting_problem);
  if (setting_problem.empty()) setting_problem = rocprof::merge::one_node_mpi_setting_problem();
  const auto place = rocprof::merge::launch_place_from_environment();
  // On one node, Open MPI's network-only layer is left out of MPI's start (before any thread).
  if (place && place->processes > 1) rocprof::merge::leave_out_network_layers(*place);
  std::optional<rocprof::merge::EarlyCheck> early;
  if (parse_error == nullptr && format && check_writable(output, inputs, csv_prefix).empty() &&
      setting_problem.empty() && rocprof::merge::send_thread_setting_problem().empty())
    if (place && place->processes > 1) {
      try {
        // Its name ends at random (EndpointSpill): the place is the launcher's word, not yet
        // MPI's, and two merges may write beside one output.
        spill.emplace(fmt::format("{}.messages.{}", output, place->index));
        ahead.emplace(*spill, spill_helpers(place->on_node));
        early.emplace(inputs, *place, spill_early, stop_spilling,
                      check_helper_setting(check_helpers, place->on_node));
      } catch (const std::exception&) {  // done again, and told, once MPI has started
        early.reset();
        ahead.reset();
        spill.reset();
      }
    }
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
  // Under `srun -n K` every process runs this; only the first one talks.
  const bool user_quiet = quiet;
  if (!group.leader()) quiet = true;
  if (!format) {
    if (!group.leader()) return 2;
    fmt::print(stderr, "rocprof-merge: cannot write '{}': the outputs are {}\n", output,
               rocprof::merge::known_formats());
    return 2;
  }
  // An output that cannot be written, or a misspelt setting: refused before any work.
  std::string refusal = check_writable(output, inputs, csv_prefix);
  if (refusal.empty()) refusal = setting_problem;
  if (refusal.empty()) refusal = group.setting_problem();
  // Each process checks what it sees (nodes may differ: a directory of one node's own, a
  // setting exported to some), and all stop together: one that stopped alone would leave the
  // others waiting for it for ever. The first one that refused says why.
  if (const int first = group.first_failed(!refusal.empty()); first >= 0) {
    if (group.index() == first)
      fmt::print(stderr, "rocprof-merge: {}{}\n", refusal,
                 first > 0 ? fmt::format(" (as merge process {} sees it)", first) : "");
    return 2;
  }
  if (!quiet)
    if (const std::string advice = rocprof::cli::one_cpu_advice(); !advice.empty())
      fmt::print(stderr, "rocprof-merge: {}\n", advice);
  // Written under a staging name beside the output, moved into place once whole: the first
  // process creates it and tells the others.
  std::optional<rocprof::merge::StagedOutput> staged;
  {
    std::string problem;
    std::vector<std::byte> name;
    if (group.leader()) {
      try {
        staged.emplace(output);
        const auto* bytes = reinterpret_cast<const std::byte*>(staged->path().data());
        name.assign(bytes, bytes + staged->path().size());
      } catch (const std::exception& error) {
        problem = error.what();
      }
    }
    group.broadcast(name);
    if (name.empty()) {
      if (group.leader()) fmt::print(stderr, "rocprof-merge: {}\n", problem);
      return 1;
    }
    if (!group.leader())
      staged.emplace(output, std::string(reinterpret_cast<const char*>(name.data()), name.size()));
  }
  const std::string& target = staged->path();
  auto tell = [&staged](const std::string& text) { return staged->tell(text); };
  rocprof::cli::PartialOutput partial(target, group.leader(), group.index());
  try {
    rocprof::merge::RankSetOptions options;
    options.allow_missing = allow_missing;
    options.skip_bad = skip_bad;
    options.check_helpers = check_helper_setting(check_helpers, group.processes_on_node());
    rocprof::cli::ProgressBar bar(!quiet);
    const bool serial = group.size() == 1;
    bar.phase("checking rank files");
    // The share checked while MPI started, if MPI placed this process where the launcher
    // said; otherwise it is dropped with its spill.
    std::optional<rocprof::merge::CheckedShare> share;
    if (early) {
      share = early->take(group);
      early.reset();
      if (!share) {
        ahead.reset();
        spill.reset();
      }
    }
    if (!spill) {
      spill.emplace(fmt::format("{}.messages.{}", output, group.index()));
      ahead.emplace(*spill, spill_helpers(group.processes_on_node()));
    }
    // In parallel, each process checks a share of the files and the others take its word.
    auto set =
        serial  ? rocprof::merge::RankSet::open(inputs, options, spill_early, stop_spilling)
        : share ? rocprof::merge::join_shares(group, std::move(*share), options, stop_spilling)
                : rocprof::merge::check_shared(group, inputs, options, spill_early, stop_spilling);
    if (group.leader())
      for (const std::string& line : set.skipped()) fmt::print(stderr, "rocprof-merge: {}\n", line);
    if (!quiet && !set.untraced().empty())
      fmt::print(stderr, "rocprof-merge: {}\n", set.untraced());
    // Incomplete files and dropped records: what the timeline lacks, told even when quiet.
    const rocprof::merge::InputHealth health = rocprof::merge::InputHealth::of(set);
    if (group.leader())
      for (const std::string& line : health.warnings())
        fmt::print(stderr, "rocprof-merge: warning: {}\n", line);
    // The ranks checked here (before their readers are replaced below): this process spills
    // them. Every rank is checked by exactly one process.
    std::vector<std::size_t> checked_here;
    for (std::size_t i = 0; i < set.ranks().size(); ++i)
      if (set.ranks()[i].checked_here) checked_here.push_back(i);
    // This process's ranks (all of them in a serial merge): read from their files, opened here
    // if another process checked them.
    // Blocks of about equal cost, not of equal rank counts: ranks may differ in size a lot.
    const std::vector<std::uint64_t> rank_weights = set.weights();
    const auto [first_rank, last_rank] = group.block(rank_weights);
    for (std::size_t i = first_rank; i < last_rank; ++i) set.open_here(i);
    bar.phase("reading clock models");
    std::vector<rocprof::merge::AlignedRank> ranks;
    ranks.reserve(set.ranks().size());
    for (const auto& rank : set.ranks()) ranks.emplace_back(rank.rank, *rank.reader);
    const rocprof::merge::ProgressReport progress = [&bar](std::size_t done, std::size_t total) {
      bar.update(done, total);
    };
    std::vector<const rocprof::merge::AlignedRank*> pointers;
    pointers.reserve(ranks.size());
    for (const auto& rank : ranks) pointers.push_back(&rank);
    // This process's ranks (all of them in a serial merge).
    const std::vector<const rocprof::merge::AlignedRank*> block(
        pointers.begin() + static_cast<std::ptrdiff_t>(first_rank),
        pointers.begin() + static_cast<std::ptrdiff_t>(last_rank));
    // The summary: gathered from the rows every exporter reads, not in a pass of its own.
    rocprof::merge::Summary summary;
    const bool want_summary = (!user_quiet && !no_summary) || !csv_prefix.empty();
    if (want_summary)
      for (const rocprof::merge::AlignedRank* rank : block) summary.watch(*rank);
    // Helpers that encode ranks ahead (.pftrace), from this process's share of the node.
    const unsigned cpus = rocprof::cli::cpus_per_process(group.processes_on_node());
    const std::size_t helpers =
        encode_helpers ? *encode_helpers : rocprof::merge::EncodeAhead::helpers_for(cpus);
    // .h5: chunks compressed at once (one helper below three CPUs, as before).
    const std::size_t chunk_encoders = std::max<std::size_t>(helpers, 1);
    // .h5: the next ranks' rows of a table made ready on helpers (none below three CPUs).
    const std::size_t stagers = helpers;
    // .pftrace: this process's first ranks, encoded while the messages are matched.
    std::optional<rocprof::merge::PerfettoHeadStart> head_start;
    {
      bar.phase("reading MPI messages");
      bool failed = false;
      std::vector<std::byte> mine;
      try {
        ahead->finish();  // its last rank; rethrows a damaged chunk's error
        for (std::size_t n = 0; n < checked_here.size(); ++n) {
          const rocprof::merge::AlignedRank& rank = ranks[checked_here[n]];
          if (!ahead->spilled(rank.rank())) spill->add(rank);
          bar.update(n + 1, checked_here.size());
        }
        mine = spill->finish().serialize();
      } catch (const std::exception& error) {
        fmt::print(stderr, "rocprof-merge: {}\n", tell(error.what()));
        failed = true;
      }
      if (group.any(failed)) return 1;
      std::vector<rocprof::merge::SpillSummary> spills;
      std::vector<rocprof::merge::StreamCount> counts;
      std::vector<rocprof::merge::InvisibleTarget> invisible;
      for (const auto& bytes : group.all_gather(mine)) {
        spills.push_back(rocprof::merge::SpillSummary::deserialize(bytes));
        counts.insert(counts.end(), spills.back().streams.begin(), spills.back().streams.end());
        invisible.insert(invisible.end(), spills.back().invisible.begin(),
                         spills.back().invisible.end());
      }
      auto streams = std::make_shared<rocprof::merge::StreamTable>(counts, std::move(invisible));
      // Ranks whose calls came from several threads: their flows are numbered as matched.
      std::vector<std::int32_t> threaded;
      for (const auto& spilled : spills)
        for (const auto& section : spilled.sections)
          if (section.threaded != 0) threaded.push_back(section.rank);
      for (auto& rank : ranks)
        rank.set_threaded(std::find(threaded.begin(), threaded.end(), rank.rank()) !=
                          threaded.end());
      rocprof::merge::CausalityReport report;
      std::vector<std::byte> outcome;
      // Every process times this phase: the others wait for the first one's matching.
      bar.phase("matching MPI messages");
      if (format == OutputFormat::kPerfetto) {
        // The matching takes one CPU of the first process (the others wait for it, idle):
        // the rest start encoding ranks as they are now, uncorrected.
        for (auto& rank : ranks) rank.set_streams(streams);
        const unsigned idle = group.leader() ? cpus - 1 : cpus;
        const std::size_t threads = std::min<std::size_t>(idle, 3);
        if (threads > 0) head_start.emplace(block, threads);
      }
      if (group.leader()) {
        try {
          report = rocprof::merge::check_causality(spills, *streams, !no_correction);
          outcome = report.serialize();
        } catch (const std::exception& error) {
          fmt::print(stderr, "rocprof-merge: {}\n", tell(error.what()));
          failed = true;
        }
      }
      if (group.any(failed)) return 1;
      group.broadcast(outcome);
      if (!group.leader()) report = rocprof::merge::CausalityReport::deserialize(outcome);
      if (head_start) head_start->stop();  // before the ranks and streams change below
      for (const std::uint32_t stream : report.given_up) streams->unmatch(stream);
      for (const auto& receive : report.repaired)
        streams->set_received_message(receive.stream, receive.place, receive.message);
      for (auto& rank : ranks) {
        if (const auto found = report.corrections.find(rank.rank());
            found != report.corrections.end())
          rank.set_correction(found->second);
        rank.set_streams(streams);
      }
      // Outputs are on the reference clock, unless a corrected time would still fall before
      // its zero (a wrong clock sample that no message corrected): every time is then moved
      // later by the same amount, the earliest rank's start at 0. Every process knows every
      // rank's start and correction: all find the same.
      std::uint64_t earliest = std::numeric_limits<std::uint64_t>::max();
      for (const auto& rank : ranks) earliest = std::min(earliest, rank.start_internal_ns());
      constexpr std::uint64_t kBase = rocprof::merge::AlignedRank::kInternalBase;
      const bool rebased = earliest < kBase;
      if (rebased) {
        for (auto& rank : ranks) rank.set_time_base(earliest);
        if (!quiet)
          fmt::print(stderr,
                     "rocprof-merge: some records fall {:.3f} s before the reference clock's "
                     "zero even after correction (a wrong clock sample?): every time is moved "
                     "that much later\n",
                     static_cast<double>(kBase - earliest) / 1e9);
      }
      if (head_start) {
        // Ranks whose correction or message flows the matching changed are encoded again in
        // their turn (a stream given up may change any rank's flows), and summed up again.
        head_start->drop(
            [&](std::size_t i) { return rebased || report.changes(block[i]->rank()); });
        if (want_summary)
          for (std::size_t i = 0; i < block.size(); ++i)
            if (head_start->started(i) && !head_start->kept(i)) summary.watch_again(*block[i]);
      }
      bar.clear();
      if (!quiet)
        fmt::print(
            "rocprof-merge: {} messages matched; receives before their send: {} after "
            "clock alignment, {} {} (largest shift {:.3f} us)\n",
            report.messages, report.violations_before, report.violations_after,
            no_correction ? "(correction off)" : "after correction",
            static_cast<double>(report.max_shift_ns) / 1000.0);
      // What stayed unmatched, and why (streams given up have no flows and no correction).
      if (const auto unmatched = streams->unmatched(report.given_up);
          !quiet && unmatched.total() > 0)
        fmt::print(stderr,
                   "rocprof-merge: {} messages left unmatched: {} in streams whose sends and "
                   "receives differ in number (a rank's file missing or cut short?), {} "
                   "received from an unknown source (MPI_Sendrecv in files before format "
                   "1.1), {} in streams whose order contradicts itself\n",
                   unmatched.total(), unmatched.uneven, unmatched.unknown_source,
                   unmatched.given_up);
      spill.reset();  // matched (the first process read every spill before the broadcast)
    }
    // JSON times are microseconds from the job's first record (viewers want small ones).
    // Each process looks at its own ranks, and they agree on the earliest.
    auto json_origin = [&, first = first_rank, last = last_rank] {
      std::uint64_t origin = std::numeric_limits<std::uint64_t>::max();
      for (std::size_t i = first; i < last; ++i)
        origin = std::min(origin, ranks[i].first_time_ns());
      if (group.size() > 1)
        for (const std::uint64_t other : group.all_gather(origin)) origin = std::min(origin, other);
      return origin;
    };
    std::uint64_t events = 0;
    bar.phase(fmt::format("writing {}", output));
    partial.arm();
    if (rocprof::merge::written_in_parts(*format) && group.size() > 1) {
      // Each process writes its block of ranks; the parts, in order, are the serial output.
      // The first part starts the output: written in place; the others are copied after it.
      const std::string part = rocprof::merge::part_path(target, group.index());
      bool failed = false;
      try {
        // A part is a new file, never one (or a link) already there.
        if (part != target) rocprof::merge::create_empty(part);
        if (format == OutputFormat::kPerfetto) {
          // A part copied into the output right after is read back from the page cache:
          // direct I/O (past 64 MiB, by default) would send it to the disk and back.
          using DirectIo = rocprof::merge::BlockFile::DirectIo;
          const DirectIo part_io =
              part != target && direct_io == DirectIo::kAuto ? DirectIo::kOff : direct_io;
          const auto stats = rocprof::merge::export_perfetto(
              block, part, progress, helpers, part_io, head_start ? &*head_start : nullptr);
          events = stats.slices + stats.instants;
        } else {
          // The first part opens the trace, the last closes it. Only the last blocks can be
          // empty (fewer ranks than processes), so no part continues an empty one.
          events = rocprof::merge::export_chrome_json(
              block, json_origin(), part, progress,
              {group.leader(), group.index() + 1 == group.size()});
        }
      } catch (const std::exception& error) {
        fmt::print(stderr, "rocprof-merge: {}\n", tell(error.what()));
        failed = true;
      }
      // A phase of its own: waiting for the other processes' parts, and copying this one.
      bar.phase("joining the parts");
      if (group.any(failed)) return 1;
      events = group.sum(events);
      // Copying is all that is left to this process: a thread per CPU it may count on (the
      // copy of one file gained nothing past 8 threads on the lent 16-core machine).
      constexpr unsigned kMostCopyThreads = 8;
      if (!rocprof::merge::join_parts(group, target, std::min(cpus, kMostCopyThreads))) return 1;
    } else if (group.size() > 1) {
      // .h5: every process encodes its block's chunks and the first writes them all; .otf2:
      // each process writes its ranks' event files and the first the global definitions.
      const rocprof::merge::MergeShare share = group.share(rank_weights);
      try {
        events =
            format == OutputFormat::kHdf5
                ? rocprof::merge::export_merged_hdf5(pointers, set.job_id(), target, progress,
                                                     &share, chunk_encoders, stagers)
                : group.sum(rocprof::merge::export_otf2(pointers, target, progress, &share).events);
        group.finish_sends();
      } catch (const std::exception& error) {
        // The others may be waiting for this process (its chunks, or a collective call): the
        // job is aborted, after this process removed what it wrote (mpirun then stops the
        // others with SIGTERM, and each removes its own files).
        fmt::print(stderr, "rocprof-merge: {}\n", tell(error.what()));
        partial.discard();
        group.abort(1);
      }
    } else if (!group.leader()) {
      // Every output is written in parallel.
    } else if (format == OutputFormat::kOtf2) {
      events = rocprof::merge::export_otf2(pointers, target, progress).events;
    } else if (format == OutputFormat::kHdf5) {
      events = rocprof::merge::export_merged_hdf5(pointers, set.job_id(), target, progress, nullptr,
                                                  chunk_encoders, stagers);
    } else if (format == OutputFormat::kPerfetto) {
      const auto stats = rocprof::merge::export_perfetto(
          pointers, target, progress, helpers, direct_io, head_start ? &*head_start : nullptr);
      events = stats.slices + stats.instants;
    } else {
      events = rocprof::merge::export_chrome_json(pointers, json_origin(), target, progress);
    }
    partial.keep();  // written whole: what follows (the summary) cannot spoil it
    bar.clear();
    if (!quiet && format == OutputFormat::kChromeJson && events > rocprof::merge::kLargeJsonEvents)
      fmt::print(stderr,
                 "rocprof-merge: {} holds {} events: JSON this large loads slowly in viewers\n",
                 output, events);
    if (want_summary) {
      // Each process summarises its ranks; the first adds up everyone's.
      bar.phase("summarising");
      for (std::size_t i = first_rank; i < last_rank; ++i) ranks[i].watch({});
      summary.end_watch();
      if (group.size() > 1) {
        const auto parts = group.all_gather(summary.serialize());
        summary = rocprof::merge::Summary();
        for (const auto& part : parts) summary.merge(part);
      }
      bar.clear();
    }
    std::vector<std::string> timing_report;
    if (timings) timing_report = rocprof::cli::timing_lines(group, bar.timings());
    if (!group.leader()) return 0;
    if (!quiet && !no_summary) {
      summary.print(stdout);
      health.print(stdout);
    }
    if (!csv_prefix.empty()) {
      std::string error;
      if (!summary.write_csv(csv_prefix, error)) {
        fmt::print(stderr, "rocprof-merge: {}\n", error);
        return 1;
      }
    }
    // The summary and CSV files stand on their own; a timeline written to a file that is
    // gone is not a success.
    if (const std::string missing = partial.missing(); !missing.empty()) {
      fmt::print(stderr, "rocprof-merge: {}\n", tell(missing));
      return 1;
    }
    if (const std::string problem = staged->commit(); !problem.empty()) {
      fmt::print(stderr, "rocprof-merge: {}\n", problem);
      return 1;
    }
    if (!quiet)
      fmt::print("rocprof-merge: {} ranks, {} events -> {}{}\n", ranks.size(), events, output,
                 group.size() > 1 ? fmt::format(" ({} merge processes)", group.size()) : "");
    for (const std::string& line : timing_report) fmt::print(stderr, "rocprof-merge: {}\n", line);
  } catch (const rocprof::merge::InputError& error) {
    // Every process of a parallel merge finds the same problem: the first says it.
    if (group.leader()) fmt::print(stderr, "rocprof-merge: {}\n", tell(error.what()));
    return 1;
  } catch (const std::exception& error) {
    fmt::print(stderr, "rocprof-merge: {}\n", tell(error.what()));
    return 1;
  }
  return 0;
}

int main(int argc, char** argv) {
  // HDF5 closes what is still open when the process exits. An output that failed to close (a
  // full file system) is already reported and removed by then, and HDF5 1.10 crashes closing
  // it again: every file is closed here before exit, so nothing is left for that clean-up.
  H5dont_atexit();
  // A check helper of another rocprof-merge (merge/input/check_helpers.hpp): no MPI, no
  // command line of its own.
  if (argc == 2 && std::string_view(argv[1]) == rocprof::merge::kCheckHelperArgument)
    return rocprof::merge::run_check_helper();
  try {
    return run(argc, argv);
  } catch (const std::exception& error) {
    fmt::print(stderr, "rocprof-merge: {}\n", error.what());
    return 1;
  }
}
