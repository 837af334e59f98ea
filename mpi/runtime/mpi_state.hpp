// What the MPI layer knows about this process: world rank and size once MPI is up, and the
// trace clock (the recorder's).
#pragma once

#include <atomic>
#include <cstdint>
#include <ctime>

#include "lib/core/tsc.hpp"

namespace rocprof::mpi {

// CLOCK_BOOTTIME in ns, the clock of every record (vDSO: no system call).
inline std::uint64_t now_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_BOOTTIME, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ULL +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

// Whether MPI calls are stamped with TSC ticks (the recorder converts them to the trace
// clock), asked of the recorder once.
bool calls_in_ticks() noexcept;

// The begin or end of an MPI call: a TSC tick or trace-clock ns, as calls_in_ticks() says.
inline std::uint64_t call_stamp() noexcept {
  return calls_in_ticks() ? core::read_tsc() : now_ns();
}

struct MpiState {
  std::atomic<std::int32_t> world_rank{-1};  // from the launcher until MPI_Init, then MPI's
  std::atomic<std::int32_t> world_size{-1};
  std::atomic<bool> initialized{false};  // between MPI_Init* and MPI_Finalize
};

MpiState& mpi_state() noexcept;

// World rank from the launcher's environment, as the recorder reads it (OMPI_COMM_WORLD_RANK,
// PMIX_RANK, PMI_RANK, then SLURM_PROCID), -1 if none.
std::int32_t rank_from_environment() noexcept;

}  // namespace rocprof::mpi
