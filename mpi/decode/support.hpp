// Small helpers the decoders share: message sizes, and statuses the application ignores.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace rocprof::mpi {

// count elements of `type` in bytes (0 for a null type or a negative count).
inline std::uint64_t message_bytes(int count, MPI_Datatype type) noexcept {
  if (count <= 0 || type == MPI_DATATYPE_NULL) return 0;
  int size = 0;
  if (PMPI_Type_size(type, &size) != MPI_SUCCESS || size <= 0) return 0;
  return static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(size);
}

// Sum of `counts` (n entries) elements of `type`, in bytes.
inline std::uint64_t message_bytes(const int* counts, int n, MPI_Datatype type) noexcept {
  if (counts == nullptr || n <= 0) return 0;
  std::uint64_t total = 0;
  for (int i = 0; i < n; ++i) total += message_bytes(counts[i], type);
  return total;
}

// Bytes a completed receive delivered, from its status.
inline std::uint64_t received_bytes(const MPI_Status& status) noexcept {
  int count = 0;
  if (PMPI_Get_count(&status, MPI_BYTE, &count) != MPI_SUCCESS || count < 0) return 0;
  return static_cast<std::uint64_t>(count);
}

// Statuses for calls whose caller passed MPI_STATUS(ES)_IGNORE: the decoder passes its own
// to PMPI instead (outputs only, so the call means the same) to learn the actual source,
// tag and size. Per thread; grows, never shrinks.
MPI_Status* scratch_status() noexcept;
MPI_Status* scratch_statuses(int count) noexcept;

}  // namespace rocprof::mpi
