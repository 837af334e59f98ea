#pragma once
// The ids of the flows (arrows) a merged trace draws: one scheme for every exporter, unique in
// the job across kinds and ranks.
//   bit 63 set: a message, by its stream's index in the job's table and its place there;
//   bit 62 set: an MPI call -> an API call made inside it, by rank and correlation id;
//   neither:    an API call -> the device work it issued, by rank and correlation id;
//   both:       the analysis's (a wait -> the rank waited for, the critical path), numbered.
// A rank's correlation ids stay below 2^44; ranks, below 2^18.

#include <cstdint>

namespace rocprof::merge {

inline std::uint64_t message_flow_id(std::uint32_t stream, std::uint32_t place) {
  return (std::uint64_t{1} << 63) | (static_cast<std::uint64_t>(stream & 0x3fffffffU) << 32) |
         place;
}

inline std::uint64_t issued_flow_id(std::int32_t rank, std::uint64_t correlation) {
  return ((static_cast<std::uint64_t>(rank) << 44) ^ correlation) & ~(std::uint64_t{3} << 62);
}

inline std::uint64_t analysis_flow_id(std::uint64_t number) {
  return (std::uint64_t{3} << 62) | (number & ~(std::uint64_t{3} << 62));
}
inline std::uint64_t inside_flow_id(std::int32_t rank, std::uint64_t correlation) {
  return (std::uint64_t{1} << 62) | issued_flow_id(rank, correlation);
}

}  // namespace rocprof::merge
