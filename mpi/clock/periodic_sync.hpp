// Clock synchronisation during the run, when ROCPROF_MPI_CLOCK_SYNC_INTERVAL asks for it
// (e.g. "60s"). It runs only where it cannot deadlock the application: right after an
// MPI_Barrier on MPI_COMM_WORLD, which every rank reaches in the same order. Rank 0 decides
// whether the interval has passed and broadcasts the decision (on a private duplicate of
// MPI_COMM_WORLD), so every rank measures, or none.
#pragma once

namespace rocprof::mpi {

// At MPI_Init*: reads the setting; a bad value is one message and no periodic measurement.
void periodic_sync_start() noexcept;

// After each MPI_Barrier(MPI_COMM_WORLD) returned.
void periodic_sync_at_world_barrier() noexcept;

}  // namespace rocprof::mpi
