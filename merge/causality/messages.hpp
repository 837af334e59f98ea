// Point-to-point messages matched across ranks, and the causality check: a message cannot be
// received before it was sent. With clocks aligned from measurements, small errors remain; the
// correction moves the receiving rank's clock forward from each violating receive by the
// least amount that fixes it (StepFunction: every rank keeps its order and the durations of
// everything between two steps), repeated until no violation is left or the passes run out.
//
// Works on message endpoints (a few bytes per send or receive) rather than on the files, so
// parallel merge processes can exchange them and all compute the same correction.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "merge/causality/step_function.hpp"
#include "merge/events/aligned_rank.hpp"

namespace rocprof::merge {

// One side of a message, as recorded by `rank`. Plain data (exchanged as bytes under MPI).
struct Endpoint {
  std::uint64_t communicator;
  std::uint64_t time_ns;  // clock-aligned, uncorrected: send began / receive completed
  std::int32_t source;
  std::int32_t destination;
  std::int32_t tag;
  std::int32_t rank;       // who recorded it (source for sends, destination for receives)
  std::uint32_t sequence;  // order in that rank's file
  std::uint32_t kind;      // 0 send, 1 receive, 2 an invisible receive (MPI_Sendrecv)
};

// Sends, receives and invisible receives of one rank, in file order.
std::vector<Endpoint> collect_endpoints(const AlignedRank& rank);

struct CausalityReport {
  std::uint64_t messages = 0;  // matched
  std::uint64_t violations_before = 0;
  std::uint64_t violations_after = 0;
  std::uint64_t max_shift_ns = 0;
  std::map<std::int32_t, StepFunction> corrections;  // per rank with a correction
  // Matched messages as flows, per rank: the MPI-call rows that start or end each flow
  // (ids unique in the job), sorted by row.
  std::map<std::int32_t, std::vector<AlignedRank::MessageFlow>> flows;
};

// Matches sends and receives per (source, destination, communicator, tag) in order (MPI's
// non-overtaking rule); a stream with an invisible receive, or unequal counts, is left out.
// With `correct`, computes the correction (deterministic: same endpoints, same result).
CausalityReport check_causality(const std::vector<Endpoint>& endpoints, bool correct,
                                int max_passes = 20);

}  // namespace rocprof::merge
