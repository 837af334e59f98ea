#include "mpi/wrappers/fortran_support.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace rocprof::mpi::fortran {
namespace {

// Open MPI's Fortran sentinels are common-block variables every binding library refers to
// by one name: their addresses, looked up once.
struct Sentinels {
  const void* in_place = dlsym(RTLD_DEFAULT, "mpi_fortran_in_place_");
  const void* bottom = dlsym(RTLD_DEFAULT, "mpi_fortran_bottom_");
  const void* status_ignore = dlsym(RTLD_DEFAULT, "mpi_fortran_status_ignore_");
  const void* statuses_ignore = dlsym(RTLD_DEFAULT, "mpi_fortran_statuses_ignore_");
};

const Sentinels& sentinels() noexcept {
  static const Sentinels found;
  return found;
}

template <typename T>
T* scratch(std::vector<T>& space, std::size_t count) noexcept {
  try {
    if (space.size() < count) space.resize(count);
  } catch (...) {
    return nullptr;
  }
  return space.data();
}

thread_local std::vector<MPI_Status> status_space;
thread_local std::vector<MPI_Fint> fortran_status_space;
thread_local std::vector<int> index_space;

}  // namespace

void* NextFunction::find() noexcept {
  void* function = dlsym(RTLD_NEXT, name_);
  if (function == nullptr) {
    std::fprintf(stderr,
                 "rocprof-mpi: the Fortran MPI binding %s is not in the process (a Fortran MPI "
                 "call from a program not linked with Open MPI's Fortran bindings?)\n",
                 name_);
    std::abort();
  }
  function_.store(function, std::memory_order_release);
  return function;
}

const void* buffer(const void* fortran) noexcept {
  if (fortran == nullptr) return fortran;
  if (fortran == sentinels().in_place) return MPI_IN_PLACE;
  if (fortran == sentinels().bottom) return MPI_BOTTOM;
  return fortran;
}

bool status_ignored(const MPI_Fint* status) noexcept {
  return status == nullptr || status == sentinels().status_ignore;
}

bool statuses_ignored(const MPI_Fint* statuses) noexcept {
  return statuses == nullptr || statuses == sentinels().statuses_ignore;
}

MPI_Status* c_statuses(int count) noexcept {
  MPI_Status* statuses =
      count > 0 ? scratch(status_space, static_cast<std::size_t>(count)) : nullptr;
  return statuses != nullptr ? statuses : MPI_STATUSES_IGNORE;
}

MPI_Fint* fortran_statuses(int count) noexcept {
  return scratch(fortran_status_space,
                 static_cast<std::size_t>(count > 0 ? count : 1) * kStatusSize);
}

void to_statuses(const MPI_Fint* fortran, MPI_Status* c, int count) noexcept {
  if (fortran == nullptr || c == nullptr) return;
  for (int i = 0; i < count; ++i)
    PMPI_Status_f2c(fortran + static_cast<std::size_t>(i) * kStatusSize, c + i);
}

int* scratch_indices(int count) noexcept {
  return scratch(index_space, static_cast<std::size_t>(count > 0 ? count : 1));
}

void from_one_based(const MPI_Fint* fortran, int* c, int count) noexcept {
  if (fortran == nullptr || c == nullptr) return;
  for (int i = 0; i < count; ++i) c[i] = fortran[i] - 1;
}

}  // namespace rocprof::mpi::fortran
