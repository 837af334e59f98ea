// The .pftrace's track uuids: the rank in the top 16 bits, then a kind, then the thread,
// queue or counter. One scheme for the timeline and the analysis tracks appended to it.
#pragma once

#include <cstdint>

namespace rocprof::merge {

constexpr int kTrackDescriptorField = 60;  // TracePacket.track_descriptor

inline std::uint64_t process_uuid(std::int32_t rank) {
  return (static_cast<std::uint64_t>(rank) + 1) << 48;
}
inline std::uint64_t thread_uuid(std::int32_t rank, std::uint32_t tid) {
  return process_uuid(rank) | (std::uint64_t{1} << 40) | tid;
}
inline std::uint64_t queue_uuid(std::int32_t rank, std::uint64_t queue) {
  return process_uuid(rank) | (std::uint64_t{2} << 40) | (queue & 0xffffffffffULL);
}
// A counter track (session << 32 | counter string id): 16 bits of session, 24 of counter.
inline std::uint64_t counter_uuid(std::int32_t rank, std::uint64_t track) {
  return process_uuid(rank) | (std::uint64_t{3} << 40) | ((track >> 32) & 0xffff) << 24 |
         (track & 0xffffff);
}
// The analysis tracks of a rank (perfetto_analysis.hpp): 0 its waits, 1 the waits on it,
// 2 its stretches of the critical path.
inline std::uint64_t analysis_uuid(std::int32_t rank, std::uint32_t kind) {
  return process_uuid(rank) | (std::uint64_t{4} << 40) | kind;
}

}  // namespace rocprof::merge
