#include "mpi/runtime/mpi_state.hpp"

#include "lib/settings/identity.hpp"

namespace rocprof::mpi {

MpiState& mpi_state() noexcept {
  static MpiState state;
  return state;
}

std::int32_t rank_from_environment() noexcept {
  // The recorder's reading of the launcher's variables: file names and external ids agree.
  try {
    return settings::identity_from_environment().rank;
  } catch (...) {
    return -1;
  }
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
