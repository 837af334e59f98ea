// Device counters in a parallel job: each device of a node is sampled by one process, the
// lowest world rank of the node that uses it, so two ranks on one GPU do not double its
// samples.
#pragma once

namespace rocprof::mpi {

// Collective over MPI_COMM_WORLD (from MPI_Init, every rank, recorded or not): shares out the
// node's devices and starts this process's sampling. Does nothing when no counters are asked.
void share_counter_devices() noexcept;

}  // namespace rocprof::mpi
