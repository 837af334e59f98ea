// What the generated Fortran wrappers (gen_fortran_wrappers.py) share: the binding function
// each forwards to, Fortran's sentinel addresses, and conversions of arrays of handles,
// statuses and indices into per-thread scratch space (grown, never shrunk: no allocation
// once a thread has seen its largest call).
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <vector>

namespace rocprof::mpi::fortran {

// Integers in a Fortran MPI status (Open MPI: an MPI_Status seen as MPI_Fint).
inline constexpr std::size_t kStatusSize = sizeof(MPI_Status) / sizeof(MPI_Fint);
static_assert(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint arrays are passed as int arrays");

// The Fortran binding's own entry a wrapper calls (pmpi_send_, pmpi_send_f08_): the next
// definition after this library's, found at the first call. Missing, the program cannot go
// on: one message, then abort.
class NextFunction {
 public:
  explicit NextFunction(const char* name) noexcept : name_(name) {}
  void* get() noexcept {
    void* function = function_.load(std::memory_order_acquire);
    return function != nullptr ? function : find();
  }

 private:
  void* find() noexcept;
  const char* name_;
  std::atomic<void*> function_{nullptr};
};

// A Fortran buffer argument in C: MPI_IN_PLACE and MPI_BOTTOM for Fortran's sentinels.
const void* buffer(const void* fortran) noexcept;
bool status_ignored(const MPI_Fint* status) noexcept;
bool statuses_ignored(const MPI_Fint* statuses) noexcept;

// `count` Fortran handles as C handles through `f2c`, in the thread's scratch space number
// `slot` (0 or 1: a call may convert two arrays of one type); back after the call (the
// binding may have changed them: a completed request is MPI_REQUEST_NULL).
template <typename Handle>
Handle* handles(const MPI_Fint* fortran, int count, Handle (*f2c)(MPI_Fint), int slot) noexcept {
  thread_local std::vector<Handle> space[2];
  if (fortran == nullptr || count <= 0 || slot < 0 || slot > 1) return nullptr;
  std::vector<Handle>& mine = space[slot];
  try {
    if (mine.size() < static_cast<std::size_t>(count)) mine.resize(static_cast<std::size_t>(count));
  } catch (...) {
    return nullptr;
  }
  for (int i = 0; i < count; ++i) mine[static_cast<std::size_t>(i)] = f2c(fortran[i]);
  return mine.data();
}

template <typename Handle>
void to_handles(const MPI_Fint* fortran, Handle* c, int count, Handle (*f2c)(MPI_Fint)) noexcept {
  if (fortran == nullptr || c == nullptr) return;
  for (int i = 0; i < count; ++i) c[i] = f2c(fortran[i]);
}

// Statuses: C ones for the decoder, Fortran ones for a binding whose caller ignores them.
MPI_Status* c_statuses(int count) noexcept;
MPI_Fint* fortran_statuses(int count) noexcept;
void to_statuses(const MPI_Fint* fortran, MPI_Status* c, int count) noexcept;

// 1-based indices (MPI_Waitsome) as 0-based ones, in scratch space.
int* scratch_indices(int count) noexcept;
void from_one_based(const MPI_Fint* fortran, int* c, int count) noexcept;

}  // namespace rocprof::mpi::fortran
