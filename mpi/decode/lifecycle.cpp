#include "mpi/decode/lifecycle.hpp"

#include <rocprof-mpi/recorder.h>

#include "mpi/clock/clock_sync.hpp"
#include "mpi/clock/periodic_sync.hpp"
#include "mpi/decode/communicators.hpp"
#include "mpi/runtime/counter_devices.hpp"
#include "mpi/runtime/mpi_state.hpp"

namespace rocprof::mpi {
namespace {

// MPI_Finalize deletes MPI_COMM_SELF's attributes first, while MPI still works: the last
// clock measurement and the flush happen there, so nothing depends on what the application
// does after MPI_Finalize returns.
int at_finalize(MPI_Comm /*comm*/, int /*keyval*/, void* /*value*/, void* /*state*/) {
  synchronise_clocks();
  release_clock_groups();
  rocprof_mpi_recorder_flush();
  return MPI_SUCCESS;
}

}  // namespace

void on_initialized() noexcept {
  MpiState& state = mpi_state();
  int rank = -1;
  int size = -1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  state.world_rank.store(rank, std::memory_order_relaxed);
  state.world_size.store(size, std::memory_order_relaxed);
  state.initialized.store(true, std::memory_order_release);
  rocprof_mpi_set_identity(rank, size);
  // Every rank takes part from here on, recorded or not (records are no-ops when not): the
  // clock measurements are collective.
  communicators_start();
  int keyval = MPI_KEYVAL_INVALID;
  if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &keyval, nullptr) == MPI_SUCCESS)
    PMPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr);
  synchronise_clocks();
  periodic_sync_start();
  share_counter_devices();
}

void on_abort() noexcept { rocprof_mpi_recorder_flush(); }

void on_finalized() noexcept { mpi_state().initialized.store(false, std::memory_order_release); }

}  // namespace rocprof::mpi
