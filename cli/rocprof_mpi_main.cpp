// rocprof-mpi: the launcher. Validates its options, puts the recorder (and the MPI layer)
// into the application's environment, and becomes the application with execvp: no shell,
// arguments passed byte for byte, and the application's exit status and signals are ours.
#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "cli/launcher/launch_options.hpp"
#include "lib/device/counter_listing.hpp"

namespace {

// Our libraries: <prefix>/lib next to <prefix>/bin, or build/lib next to build/cli.
std::string library_directory() {
  std::error_code code;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", code);
  for (const char* relative : {"../lib", "../lib64"}) {
    const std::filesystem::path candidate = self.parent_path() / relative;
    if (std::filesystem::exists(candidate / "librocprof-mpi.so", code))
      return std::filesystem::weakly_canonical(candidate, code).string();
  }
  return (self.parent_path() / "../lib").string();
}

}  // namespace

int main(int argc, char** argv) {
  rocprof::cli::LaunchOptions options;
  const rocprof::cli::ParseOutcome outcome =
      rocprof::cli::parse_launch_options(argc, argv, options);
  if (!outcome.run) {
    std::fputs(outcome.message.c_str(), outcome.exit_code == 0 ? stdout : stderr);
    return outcome.exit_code;
  }
  if (options.list_counters) {
    std::fputs(rocprof::device::describe_counters().c_str(), stdout);
    return 0;
  }
  // An NVIDIA driver on this node: HIP and system tracing include CUDA. Looked for only when
  // that matters, here in the launcher, whose image exec replaces.
  options.nvidia_driver = rocprof::cli::cuda_on_nvidia(options) &&
                          dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL) != nullptr;
  const std::string libraries = library_directory();
  const auto environment = rocprof::cli::tracing_environment(options, libraries);
  if (options.print_config) {
    std::fputs(rocprof::cli::describe(options, environment).c_str(), stdout);
    return 0;
  }
  if (!std::filesystem::exists(libraries + "/librocprof-mpi.so")) {
    std::fprintf(stderr, "rocprof-mpi: the recorder library is not in %s (broken installation)\n",
                 libraries.c_str());
    return 2;
  }
  // Single-threaded, just before exec: setenv is safe here.
  for (const auto& [name, value] : environment)
    setenv(name.c_str(), value.c_str(), 1);  // NOLINT(concurrency-mt-unsafe)
  // The application is a rank's own process even when this launcher was started by a traced
  // one (a job script under the recorder): it records as such, not as a helper it started.
  unsetenv("ROCPROF_MPI_RECORDER_PID");  // NOLINT(concurrency-mt-unsafe)
  std::vector<char*> arguments;
  for (auto& argument : options.command) arguments.push_back(argument.data());
  arguments.push_back(nullptr);
  execvp(arguments.front(), arguments.data());
  const int error = errno;
  std::fprintf(stderr, "rocprof-mpi: cannot run '%s': %s\n", arguments.front(),
               std::generic_category().message(error).c_str());
  return error == ENOENT ? 127 : 126;  // the shell's conventions
}
