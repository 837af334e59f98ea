// The wait states the merge finds, and which collectives wait how. A wait state is time a
// rank spent inside an MPI call only because another rank was not there yet (the patterns of
// Scalasca's analysis, found here on the merge's aligned and corrected timeline).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace rocprof::merge {

enum class WaitPattern : std::uint8_t {
  kLateSender,     // a receive (or the wait completing it) began before its message was sent
  kLateReceiver,   // a blocking send began before its receive was posted, and waited for it
  kWaitAtNxN,      // an all-to-all collective waited for the last rank to enter
  kWaitAtBarrier,  // MPI_Barrier waited for the last rank to enter
  kLateBroadcast,  // a rank of a one-to-all collective entered before the root
  kEarlyReduce,    // the root of an all-to-one collective entered before the last other rank
};
inline constexpr int kWaitPatterns = 6;

std::string_view wait_pattern_name(WaitPattern pattern);  // "late sender", ...

// How a collective's ranks wait for each other.
enum class CollectiveKind : std::uint8_t {
  kNone,      // not a collective
  kNxN,       // MPI_Allreduce, _Allgather(v), _Alltoall(v/w), _Reduce_scatter(_block)
  kBarrier,   // MPI_Barrier
  kOneToN,    // MPI_Bcast, _Scatter(v): the others wait for the root
  kNToOne,    // MPI_Reduce, _Gather(v): the root waits for the others
  kUnpaired,  // other collectives (scans, non-blocking ones): numbered, not analysed
};
CollectiveKind collective_kind(const std::string& function);

}  // namespace rocprof::merge
