// Which wrapped MPI functions this run records: all but those ROCPROF_MPI_EXCLUDE_CALLS names
// (rocprof-mpi --mpi-exclude; lib/settings/mpi_exclude.hpp), decided once per function when
// the first call comes. Excluded calls run and keep the layer's bookkeeping; no record.
#pragma once

#include "mpi_functions.hpp"

namespace rocprof::mpi {

bool call_recorded(Fn fn) noexcept;

}  // namespace rocprof::mpi
