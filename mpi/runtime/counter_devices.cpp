#include "mpi/runtime/counter_devices.hpp"

#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include <rocprof-mpi/recorder.h>

namespace rocprof::mpi {

void share_counter_devices() noexcept {
  // The launcher gives every rank the same setting, so every rank takes this branch or none.
  const char* asked = std::getenv("ROCPROF_MPI_DEVICE_COUNTERS");  // NOLINT(concurrency-mt-unsafe)
  if (asked == nullptr || *asked == '\0') return;
  try {
    MPI_Comm node = MPI_COMM_NULL;
    // Key 0 keeps world-rank order within the node.
    if (PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) !=
        MPI_SUCCESS)
      return;
    int local_rank = 0;
    int local_size = 1;
    PMPI_Comm_rank(node, &local_rank);
    PMPI_Comm_size(node, &local_size);
    // A process that does not record (outside ROCPROF_MPI_RANKS) wants none: the next one
    // of the node takes its devices.
    const std::uint64_t wanted = rocprof_mpi_counter_devices();
    std::vector<std::uint64_t> everyone(static_cast<std::size_t>(local_size), 0);
    const int shared =
        PMPI_Allgather(&wanted, 1, MPI_UINT64_T, everyone.data(), 1, MPI_UINT64_T, node);
    PMPI_Comm_free(&node);
    if (shared != MPI_SUCCESS) return;
    std::uint64_t taken = 0;
    for (int lower = 0; lower < local_rank; ++lower)
      taken |= everyone[static_cast<std::size_t>(lower)];
    if (const std::uint64_t mine = wanted & ~taken; mine != 0)
      rocprof_mpi_sample_counter_devices(mine);
  } catch (...) {
    // Sampling is an extra: MPI_Init goes on without it.
  }
}

}  // namespace rocprof::mpi
