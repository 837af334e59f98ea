#include "merge/analysis/wait_patterns.hpp"

#include <unordered_map>

namespace rocprof::merge {

std::string_view wait_pattern_name(WaitPattern pattern) {
  switch (pattern) {
    case WaitPattern::kLateSender:
      return "late sender";
    case WaitPattern::kLateReceiver:
      return "late receiver";
    case WaitPattern::kWaitAtNxN:
      return "wait at NxN";
    case WaitPattern::kWaitAtBarrier:
      return "wait at barrier";
    case WaitPattern::kLateBroadcast:
      return "late broadcast";
    case WaitPattern::kEarlyReduce:
      return "early reduce";
  }
  return "unknown";
}

CollectiveKind collective_kind(const std::string& function) {
  using enum CollectiveKind;
  static const std::unordered_map<std::string, CollectiveKind> kKinds = {
      {"MPI_Allreduce", kNxN},       {"MPI_Allgather", kNxN},
      {"MPI_Allgatherv", kNxN},      {"MPI_Alltoall", kNxN},
      {"MPI_Alltoallv", kNxN},       {"MPI_Alltoallw", kNxN},
      {"MPI_Reduce_scatter", kNxN},  {"MPI_Reduce_scatter_block", kNxN},
      {"MPI_Barrier", kBarrier},     {"MPI_Bcast", kOneToN},
      {"MPI_Scatter", kOneToN},      {"MPI_Scatterv", kOneToN},
      {"MPI_Reduce", kNToOne},       {"MPI_Gather", kNToOne},
      {"MPI_Gatherv", kNToOne},      {"MPI_Scan", kUnpaired},
      {"MPI_Exscan", kUnpaired},     {"MPI_Iallreduce", kUnpaired},
      {"MPI_Iallgather", kUnpaired}, {"MPI_Iallgatherv", kUnpaired},
      {"MPI_Ialltoall", kUnpaired},  {"MPI_Ialltoallv", kUnpaired},
      {"MPI_Ialltoallw", kUnpaired}, {"MPI_Ireduce_scatter", kUnpaired},
      {"MPI_Ibarrier", kUnpaired},   {"MPI_Ibcast", kUnpaired},
      {"MPI_Iscatter", kUnpaired},   {"MPI_Iscatterv", kUnpaired},
      {"MPI_Ireduce", kUnpaired},    {"MPI_Igather", kUnpaired},
      {"MPI_Igatherv", kUnpaired},   {"MPI_Iscan", kUnpaired},
      {"MPI_Iexscan", kUnpaired},    {"MPI_Ireduce_scatter_block", kUnpaired},
  };
  const auto found = kKinds.find(function);
  return found == kKinds.end() ? kNone : found->second;
}

}  // namespace rocprof::merge
