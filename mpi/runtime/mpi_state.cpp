#include "mpi/runtime/mpi_state.hpp"

#include <charconv>
#include <cstdlib>
#include <string_view>

namespace rocprof::mpi {

MpiState& mpi_state() noexcept {
  static MpiState state;
  return state;
}

std::int32_t rank_from_environment() noexcept {
  // Same order as the recorder's file naming: SLURM_PROCID last (every process sees 0 under
  // mpirun inside an allocation).
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"}) {
    const char* text = std::getenv(name);  // NOLINT(concurrency-mt-unsafe): read at start only
    if (text == nullptr) continue;
    std::int32_t value = -1;
    const std::string_view view = text;
    const auto [end, code] = std::from_chars(view.data(), view.data() + view.size(), value);
    if (code == std::errc{} && end == view.data() + view.size() && value >= 0) return value;
  }
  return -1;
}

}  // namespace rocprof::mpi

namespace {
// Until MPI_Init says otherwise, the launcher's rank names this process (external ids).
[[maybe_unused]] const bool g_rank_from_launcher = [] {
  rocprof::mpi::mpi_state().world_rank.store(rocprof::mpi::rank_from_environment(),
                                             std::memory_order_relaxed);
  return true;
}();
}  // namespace
