#include "mpi/clock/periodic_sync.hpp"

#include <mpi.h>
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "mpi/clock/clock_sync.hpp"
#include "mpi/runtime/mpi_state.hpp"

namespace rocprof::mpi {
namespace {

std::uint64_t g_interval_ns = 0;  // 0: off. Set once in MPI_Init, read by the calling thread.
std::uint64_t g_last_sync_ns = 0;
MPI_Comm g_decision_comm = MPI_COMM_NULL;

// "250ms", "60s", "2m", or milliseconds without a unit; 0 if not a duration.
std::uint64_t parse_interval_ns(std::string_view text) {
  std::uint64_t value = 0;
  const auto [end, code] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (code != std::errc{} || end == text.data() || value == 0) return 0;
  const std::string_view unit(end, static_cast<std::size_t>(text.data() + text.size() - end));
  if (unit.empty() || unit == "ms") return value * 1'000'000ULL;
  if (unit == "s") return value * 1'000'000'000ULL;
  if (unit == "m") return value * 60'000'000'000ULL;
  return 0;
}

void complain(const std::string& text) {
  const std::string line = "rocprof-mpi: " + text + "\n";
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, line.data(), line.size());
}

}  // namespace

void periodic_sync_start() noexcept {
  // Read once at MPI_Init; nothing in the library calls setenv.
  const char* text =
      std::getenv("ROCPROF_MPI_CLOCK_SYNC_INTERVAL");  // NOLINT(concurrency-mt-unsafe)
  if (text == nullptr || *text == '\0') return;
  g_interval_ns = parse_interval_ns(text);
  if (g_interval_ns == 0) {
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
      complain(std::string("ROCPROF_MPI_CLOCK_SYNC_INTERVAL='") + text +
               "' is not a duration (e.g. 500ms, 60s, 5m); clocks are synchronised at MPI_Init "
               "and MPI_Finalize only");
    return;
  }
  PMPI_Comm_dup(MPI_COMM_WORLD, &g_decision_comm);
  g_last_sync_ns = now_ns();
}

void periodic_sync_at_world_barrier() noexcept {
  if (g_interval_ns == 0 || g_decision_comm == MPI_COMM_NULL) return;
  int rank = 0;
  PMPI_Comm_rank(g_decision_comm, &rank);
  int due = rank == 0 && now_ns() - g_last_sync_ns >= g_interval_ns ? 1 : 0;
  PMPI_Bcast(&due, 1, MPI_INT, 0, g_decision_comm);
  if (due == 0) return;
  synchronise_clocks();
  g_last_sync_ns = now_ns();
}

}  // namespace rocprof::mpi
