// Point-to-point messages matched across ranks, and the causality check: a message cannot be
// received before it was sent. With clocks aligned from measurements, small errors remain; the
// correction shifts the receiving rank's clock forward from each violating receive by the
// least amount that fixes it (a non-decreasing step function per rank, so every rank keeps
// its order and the durations of everything between two steps), repeated until no violation
// is left or the step budget is spent.
#pragma once

#include <cstdint>
#include <vector>

#include "merge/events/aligned_rank.hpp"

namespace rocprof::merge {

struct Message {
  std::int32_t source;
  std::int32_t destination;
  std::uint64_t send_ns;     // the send call began (aligned)
  std::uint64_t receive_ns;  // the receive completed (aligned)
};

struct CausalityReport {
  std::uint64_t messages = 0;         // matched
  std::uint64_t unmatched_sends = 0;  // in streams whose sends and receives do not pair up
  std::uint64_t unmatched_receives = 0;
  std::uint64_t violations_before = 0;
  std::uint64_t violations_after = 0;
  std::uint64_t max_shift_ns = 0;
};

// Matches sends and receives per (source, destination, communicator, tag) in order, as MPI's
// non-overtaking rule does. Receives of MPI_Sendrecv cannot be matched (their source is not
// recorded), so streams they take part in are left out and counted as unmatched.
std::vector<Message> match_messages(const std::vector<const AlignedRank*>& ranks);

std::uint64_t count_violations(const std::vector<Message>& messages);

// Computes each rank's correction steps and installs them on the ranks (AlignedRank::align
// applies them from then on). Returns the report; `messages` are re-read with corrections.
CausalityReport correct_causality(const std::vector<AlignedRank*>& ranks, int max_passes = 20);

}  // namespace rocprof::merge
