// Measures this rank's clock offset to the reference rank (world rank 0) and records it as
// a clock sample. Collective over MPI_COMM_WORLD: every rank calls it at the same point
// (inside MPI_Init* and at the start of MPI_Finalize).
//
// Cost is kept off rank 0: ranks that provably share a clock (same host and same time
// namespace) form a group whose leader alone measures; leaders measure against leaders
// already synchronised, doubling the synchronised set each round (log2(groups) rounds of
// disjoint pairs), and each offset is the sum along its path. A measurement is the best of
// several ping-pongs: offset = partner's time - midpoint of our send and receive, kept for
// the lowest round trip; uncertainty = half that round trip plus the partner's.
#pragma once

#include <cstdint>

namespace rocprof::mpi {

struct ClockSyncResult {
  std::int64_t offset_ns = 0;  // reference clock minus local clock
  std::uint64_t round_trip_ns = 0;
  std::uint64_t uncertainty_ns = 0;
  std::uint64_t local_ns = 0;  // local time of the measurement
  std::uint64_t duration_ns = 0;
};

// Runs the measurement over PMPI (never recorded as the application's calls), records the
// sample and returns it. Returns a zero result without communicating if MPI is not usable.
ClockSyncResult synchronise_clocks() noexcept;

// Frees the communicators the measurements keep (the first one makes them): at MPI_Finalize,
// after the last measurement. A measurement after it makes them again.
void release_clock_groups() noexcept;

}  // namespace rocprof::mpi
