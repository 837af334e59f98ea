// The rocprof-mpi launcher's options, in the style of rocprofv3, and how they become the
// recorder's ROCPROF_MPI_* settings.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace rocprof::cli {

struct LaunchOptions {
  bool hip_trace = false;
  bool hsa_trace = false;
  bool kernel_trace = false;
  bool memory_copy_trace = false;
  bool marker_trace = false;
  bool mpi_trace = false;
  bool sys_trace = false;
  bool cuda_trace = false;
  std::string cuda_graph_trace = "node";  // node: each kernel of a graph; graph: each launch
  // Whether this node has an NVIDIA driver (libcuda): HIP and system tracing then mean CUDA
  // tracing too. Found by the launcher before it builds the environment.
  bool nvidia_driver = false;
  std::string output_directory = "rocprof-mpi-%job%";
  std::string output_file = "%rank%.h5";
  std::string mpi_ranks;  // empty: all
  // MPI calls not recorded: names or patterns, comma-separated ("@FILE": from a filter file,
  // read by parse_launch_options into the list).
  std::string mpi_exclude;
  std::string compression = "zstd:1";
  std::string flush_interval = "1s";
  std::string clock_sync_interval;        // empty: at MPI_Init and MPI_Finalize only
  std::string helper_cpus = "all";        // where the recorder's threads run: all or rank
  std::string device_counters;            // empty: none sampled
  std::string counter_interval = "10ms";  // between two samples
  bool print_config = false;
  bool list_counters = false;
  std::vector<std::string> command;  // the application and its arguments
};

struct ParseOutcome {
  bool run = false;     // false: exit with exit_code after printing `message`
  int exit_code = 0;    // 0 for --help/--version, 2 for errors
  std::string message;  // for stdout (help, version) or stderr (errors)
};

// Parses argv (everything after "--" is the application, byte for byte). Validates every
// setting with the recorder's own parsers, so what the launcher accepts the recorder does.
ParseOutcome parse_launch_options(int argc, char** argv, LaunchOptions& options);

// The environment the application gets on top of the launcher's: LD_PRELOAD of the recorder
// (and of the MPI layer with --mpi-trace), ROCPROF_MPI_* settings. `library_dir` holds our
// libraries.
// Whether the options ask for what CUDA tracing is on an NVIDIA node (HIP, kernels, copies,
// everything) without naming --cuda-trace: only then does the node's driver matter.
bool cuda_on_nvidia(const LaunchOptions& options);

std::map<std::string, std::string> tracing_environment(const LaunchOptions& options,
                                                       const std::string& library_dir);

// The resolved configuration, one "NAME=value" per line (for --print-config).
std::string describe(const LaunchOptions& options, const std::map<std::string, std::string>& env);

}  // namespace rocprof::cli
