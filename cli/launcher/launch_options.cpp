#include "cli/launcher/launch_options.hpp"

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>

#include "cli/help/manuals.hpp"
#include "cli/help/usage_line.hpp"
#include "lib/device/counter_listing.hpp"
#include "lib/format/compression.hpp"
#include "lib/settings/config.hpp"
#include "lib/settings/identity.hpp"
#include "lib/settings/mpi_exclude.hpp"

namespace rocprof::cli {
namespace {

constexpr const char* kVersion = "0.1.0";

// Launchers that must not be traced themselves: they go before rocprof-mpi, not after it.
bool is_job_launcher(const std::string& program) {
  const std::string name = std::filesystem::path(program).filename().string();
  return name == "mpirun" || name == "mpiexec" || name == "orterun" || name == "srun" ||
         name == "aprun" || name == "flux" || name == "jsrun";
}

bool traces_everything(const LaunchOptions& o) {
  const bool none = !(o.hip_trace || o.hsa_trace || o.kernel_trace || o.memory_copy_trace ||
                      o.marker_trace || o.mpi_trace || o.sys_trace || o.cuda_trace);
  return o.sys_trace || none;
}

std::string validate(const LaunchOptions& o) {
  std::string error;
  format::Compression compression;
  if (!format::Compression::parse(o.compression, compression, error))
    return "--compression: " + error;
  std::uint32_t ms = 0;
  if (!settings::parse_duration_ms(o.flush_interval, ms))
    return fmt::format(
        "--flush-interval '{}' is not a duration between 1ms and 3600s (e.g. 500ms, 2s)",
        o.flush_interval);
  if (!o.clock_sync_interval.empty()) {
    const std::string& text = o.clock_sync_interval;
    const bool ok = !text.empty() && std::isdigit(static_cast<unsigned char>(text[0])) != 0 &&
                    (text.ends_with("ms") || text.ends_with("s") || text.ends_with("m"));
    if (!ok)
      return fmt::format("--clock-sync-interval '{}' is not a duration (e.g. 500ms, 60s, 5m)",
                         text);
  }
  if (!o.device_counters.empty()) {
    std::vector<std::string> names;
    if (!settings::parse_counter_names(o.device_counters, names, error))
      return "--device-counters: " + error;
    if (const std::string* unknown = device::unknown_counter(names))
      return fmt::format(
          "--device-counters: no device offers a counter named {} (rocprof-mpi "
          "--list-counters lists them)",
          *unknown);
  }
  if (!settings::parse_duration_ms(o.counter_interval, ms))
    return fmt::format(
        "--counter-interval '{}' is not a duration between 1ms and 3600s (e.g. 10ms, 1s)",
        o.counter_interval);
  if (!o.mpi_exclude.empty()) {
    std::vector<std::string> patterns;
    if (!settings::parse_mpi_exclude(o.mpi_exclude, patterns, error))
      return "--mpi-exclude: " + error;
    if (!traces_everything(o) && !o.mpi_trace)
      return "--mpi-exclude needs MPI tracing (--mpi-trace or --sys-trace)";
  }
  if (!o.mpi_ranks.empty()) {
    settings::RankList ranks;
    if (!settings::parse_rank_list(o.mpi_ranks, ranks, error)) return "--mpi-ranks: " + error;
  }
  // Placeholders: expanded here with a sample identity only to find mistakes early.
  settings::Identity sample;
  sample.rank = 0;
  sample.size = 1;
  sample.pid = 1;
  sample.hostname = "host";  // each node's own name is known only there
  sample.job_id = "job";
  if (o.output_directory.empty()) return "--output-directory is empty: give a directory";
  if (o.output_file.empty()) return "--output-file is empty: give a file name";
  std::string expanded;
  if (!settings::expand_placeholders(o.output_directory, sample, expanded, error))
    return "--output-directory: " + error;
  if (!settings::expand_placeholders(o.output_file, sample, expanded, error))
    return "--output-file: " + error;
  if (o.output_file.find('/') != std::string::npos)
    return fmt::format(
        "--output-file '{}' must be a file name; put directories in "
        "--output-directory",
        o.output_file);
  if (o.command.empty())
    return "no application given: put it after '--' (rocprof-mpi [options] -- ./app args)";
  if (is_job_launcher(o.command.front()))
    return fmt::format(
        "'{}' is a job launcher: run it around rocprof-mpi, not under it "
        "(e.g. srun -n 4 rocprof-mpi --mpi-trace -- ./app)",
        o.command.front());
  return {};
}

}  // namespace

ParseOutcome parse_launch_options(int argc, char** argv, LaunchOptions& o) {
  // Everything after the first "--" belongs to the application, untouched.
  int split = argc;
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "--") {
      split = i;
      break;
    }
  for (int i = split + 1; i < argc; ++i) o.command.emplace_back(argv[i]);

  CLI::App app{"rocprof-mpi: trace an MPI + GPU application, one HDF5 rank file per process.",
               "rocprof-mpi"};
  set_usage_line(app, "[srun -n N | mpirun -np N] rocprof-mpi [options] -- ./app [args]");
  app.set_version_flag("--version", std::string("rocprof-mpi ") + kVersion);
  app.footer("More: " + manual_path("ROCPROF_MPI.md"));
  app.add_flag("--hip-trace", o.hip_trace, "HIP API calls and the device work they issue");
  app.add_flag("--hsa-trace", o.hsa_trace, "HSA API calls and HSA device work");
  app.add_flag("--kernel-trace", o.kernel_trace, "kernel dispatches");
  app.add_flag("--memory-copy-trace", o.memory_copy_trace, "memory copies");
  app.add_flag("--marker-trace", o.marker_trace, "ROC-TX markers and ranges");
  app.add_flag("--mpi-trace", o.mpi_trace, "MPI calls (PMPI wrappers) and clock synchronisation");
  app.add_flag("--cuda-trace", o.cuda_trace,
               "CUDA runtime and driver API calls and GPU work on NVIDIA GPUs (CUPTI)");
  app.add_option("--cuda-graph-trace", o.cuda_graph_trace,
                 "CUDA graphs as their kernels, copies and memsets (node) or as one record per "
                 "launch (graph)")
      ->check(CLI::IsMember({"node", "graph"}))
      ->capture_default_str();
  app.add_flag("--sys-trace", o.sys_trace, "all of the above (the default when none is given)");
  app.add_option("-d,--output-directory", o.output_directory,
                 "directory of the rank files; placeholders %hostname% %pid% %rank% %size% "
                 "%job% %env{NAME}%")
      ->capture_default_str();
  app.add_option("-o,--output-file", o.output_file, "rank file name (same placeholders)")
      ->capture_default_str();
  app.add_option("--mpi-ranks", o.mpi_ranks, "trace only these world ranks, e.g. 0,4-7");
  app.add_option("--mpi-exclude", o.mpi_exclude,
                 "do not record these MPI calls: names or patterns, e.g. "
                 "MPI_Comm_rank,MPI_Test* (or @FILE: one per line)");
  app.add_option("--compression", o.compression, "zstd[:LEVEL], deflate[:LEVEL] or none")
      ->capture_default_str();
  app.add_option("--flush-interval", o.flush_interval,
                 "longest time a record waits to be on disk (e.g. 500ms, 2s)")
      ->capture_default_str();
  app.add_option("--clock-sync-interval", o.clock_sync_interval,
                 "also synchronise clocks at world barriers this often (e.g. 60s)");
  app.add_option("--helper-cpus", o.helper_cpus,
                 "where the recorder's own threads run: any CPU the job step has (all) or "
                 "only the rank's (rank)")
      ->check(CLI::IsMember({"all", "rank"}))
      ->capture_default_str();
  app.add_option("--device-counters", o.device_counters,
                 "sample these counters of the host and of the GPUs the ranks use, e.g. "
                 "CPU_UTIL,GPU_UTIL,GPU_POWER (--list-counters lists them)");
  app.add_option("--counter-interval", o.counter_interval,
                 "time between two samples of the device counters (e.g. 10ms, 1s)")
      ->capture_default_str();
  app.add_flag("--print-config", o.print_config,
               "print the resolved configuration and exit without running");
  app.add_flag("--list-counters", o.list_counters,
               "list the device counters this machine offers (host, GPUs) and exit");

  app.allow_extras();  // to say what a stray word means, below
  ParseOutcome outcome;
  try {
    app.parse(split, argv);
  } catch (const CLI::CallForHelp&) {
    outcome.message = app.help();
    return outcome;
  } catch (const CLI::CallForVersion& version) {
    outcome.message = version.what();
    outcome.message += "\n";
    return outcome;
  } catch (const CLI::ParseError& error) {
    outcome.exit_code = 2;
    outcome.message =
        fmt::format("rocprof-mpi: {}\nrocprof-mpi: see rocprof-mpi --help\n", error.what());
    return outcome;
  }
  if (const auto extras = app.remaining(); !extras.empty()) {
    outcome.exit_code = 2;
    outcome.message =
        extras.front().starts_with("-")
            ? fmt::format("rocprof-mpi: unknown option '{}' (see rocprof-mpi --help)\n",
                          extras.front())
            : fmt::format(
                  "rocprof-mpi: '{}' is not an option: put the application after '--' "
                  "(rocprof-mpi [options] -- ./app args)\n",
                  extras.front());
    return outcome;
  }
  if (o.list_counters) {
    outcome.run = true;  // the caller lists them; no application
    return outcome;
  }
  if (split == argc && !o.print_config) {
    outcome.exit_code = 2;
    outcome.message =
        "rocprof-mpi: no '--' before the application (rocprof-mpi [options] -- ./app args)\n";
    return outcome;
  }
  if (o.mpi_exclude.starts_with("@")) {
    std::string list;
    std::string error;
    if (!settings::read_mpi_exclude_file(o.mpi_exclude.substr(1), list, error)) {
      outcome.exit_code = 2;
      outcome.message = "rocprof-mpi: --mpi-exclude: " + error + "\n";
      return outcome;
    }
    o.mpi_exclude = list;
  }
  if (const std::string error = validate(o);
      !error.empty() && !(o.print_config && o.command.empty())) {
    outcome.exit_code = 2;
    outcome.message = "rocprof-mpi: " + error + "\n";
    return outcome;
  }
  outcome.run = true;
  return outcome;
}

bool cuda_on_nvidia(const LaunchOptions& o) {
  return !o.cuda_trace &&
         (traces_everything(o) || o.hip_trace || o.kernel_trace || o.memory_copy_trace);
}

std::map<std::string, std::string> tracing_environment(const LaunchOptions& o,
                                                       const std::string& library_dir) {
  std::map<std::string, std::string> env;
  const bool all = traces_everything(o);
  // On NVIDIA GPUs the HIP-side options mean the CUDA runtime, driver and GPU activity.
  const bool cuda = o.cuda_trace || (o.nvidia_driver && cuda_on_nvidia(o));
  std::vector<std::string> domains;
  if (all) {
    domains = {"all"};
  } else {
    if (o.marker_trace) domains.emplace_back("roctx");
    if (o.hip_trace) domains.insert(domains.end(), {"hip_api", "hip_ops"});
    if (o.hsa_trace) domains.insert(domains.end(), {"hsa_api", "hsa_ops"});
    if ((o.kernel_trace || o.memory_copy_trace) && !o.hip_trace) domains.emplace_back("hip_ops");
    if ((o.kernel_trace || o.memory_copy_trace) && !o.hsa_trace) domains.emplace_back("hsa_ops");
    if (o.mpi_trace) domains.emplace_back("mpi");
    if (!o.device_counters.empty()) domains.emplace_back("counters");
  }
  if (cuda) {
    domains.emplace_back("cuda");
    env["ROCPROF_MPI_CUDA_GRAPH_TRACE"] = o.cuda_graph_trace;
  }
  std::string joined;
  for (const auto& domain : domains) joined += (joined.empty() ? "" : ",") + domain;
  env["ROCPROF_MPI_DOMAINS"] = joined;
  env["ROCPROF_MPI_OUTPUT_DIR"] = o.output_directory;
  env["ROCPROF_MPI_OUTPUT_FILE"] = o.output_file;
  env["ROCPROF_MPI_COMPRESSION"] = o.compression;
  env["ROCPROF_MPI_FLUSH_INTERVAL"] = o.flush_interval;
  env["ROCPROF_MPI_ANNOUNCE"] = "1";
  env["ROCPROF_MPI_HELPER_CPUS"] = o.helper_cpus;
  if (!o.mpi_ranks.empty()) env["ROCPROF_MPI_RANKS"] = o.mpi_ranks;
  if (!o.mpi_exclude.empty()) env["ROCPROF_MPI_EXCLUDE_CALLS"] = o.mpi_exclude;
  if (!o.device_counters.empty()) {
    env["ROCPROF_MPI_DEVICE_COUNTERS"] = o.device_counters;
    env["ROCPROF_MPI_COUNTER_INTERVAL"] = o.counter_interval;
  }
  if (!o.clock_sync_interval.empty())
    env["ROCPROF_MPI_CLOCK_SYNC_INTERVAL"] = o.clock_sync_interval;
  // The recorder goes first: its interposed sigaction/signal/close must come before the C
  // library's in the lookup order, which a dependency of the MPI layer would not. Without
  // --mpi-trace only the recorder is loaded, so programs without MPI never load libmpi
  // through us.
  const bool mpi = all || o.mpi_trace;
  std::string preload = library_dir + "/librocprof-mpi.so";
  if (mpi) preload += ":" + library_dir + "/librocprof-mpi-pmpi.so";
  // Keep what the user preloads already, after ours.
  if (const char* existing = std::getenv("LD_PRELOAD");  // NOLINT(concurrency-mt-unsafe)
      existing != nullptr && *existing != '\0')
    preload += std::string(":") + existing;
  env["LD_PRELOAD"] = preload;
  if (all || o.hsa_trace || o.kernel_trace || o.memory_copy_trace)
    env["HSA_TOOLS_LIB"] = library_dir + "/libroctracer64.so.4";
  return env;
}

std::string describe(const LaunchOptions& o, const std::map<std::string, std::string>& env) {
  std::ostringstream out;
  for (const auto& [name, value] : env) out << name << "=" << value << "\n";
  out << "command=";
  for (std::size_t i = 0; i < o.command.size(); ++i)
    out << (i == 0 ? "" : " ") << "'" << o.command[i] << "'";
  out << "\n";
  return out.str();
}

}  // namespace rocprof::cli
