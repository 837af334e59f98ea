#include "mpi/runtime/call_filter.hpp"

#include <unistd.h>

#include <array>
#include <cstdlib>
#include <string>
#include <vector>

#include "lib/settings/identity.hpp"
#include "lib/settings/mpi_exclude.hpp"

namespace rocprof::mpi {
namespace {

void say(const std::string& text) {
  const std::string line = "rocprof-mpi: " + text + "\n";
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, line.data(), line.size());
}

struct Filter {
  std::array<bool, kFunctionCount> recorded{};

  Filter() {
    recorded.fill(true);
    // Read once; nothing in the library calls setenv.
    const char* text = std::getenv("ROCPROF_MPI_EXCLUDE_CALLS");  // NOLINT(concurrency-mt-unsafe)
    if (text == nullptr || *text == '\0') return;
    // One rank speaks for all (they all read the same setting).
    const bool speaks = settings::identity_from_environment().rank <= 0;
    std::vector<std::string> patterns;
    std::string error;
    if (!settings::parse_mpi_exclude(text, patterns, error)) {
      if (speaks) say("ROCPROF_MPI_EXCLUDE_CALLS: " + error + "; every MPI call is recorded");
      return;
    }
    std::vector<bool> used(patterns.size(), false);
    for (std::uint16_t f = 0; f < kFunctionCount; ++f) {
      const char* name = function_name(static_cast<Fn>(f));
      for (std::size_t p = 0; p < patterns.size(); ++p)
        if (settings::mpi_pattern_matches(patterns[p], name)) {
          recorded[f] = false;
          used[p] = true;
        }
    }
    for (std::size_t p = 0; p < patterns.size(); ++p)
      if (!used[p] && speaks)
        say("--mpi-exclude: " + patterns[p] + " matches no MPI function the layer wraps");
  }
};

}  // namespace

bool call_recorded(Fn fn) noexcept {
  static const Filter filter;
  return filter.recorded[static_cast<std::uint16_t>(fn)];
}

}  // namespace rocprof::mpi
