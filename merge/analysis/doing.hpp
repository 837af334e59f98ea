// What a rank was doing at some time (a region, an MPI or API call, GPU work), that another
// rank's wait on it may be blamed on: 24 bytes, as the analysis keeps many per rank.
#pragma once

#include <algorithm>
#include <cstdint>

namespace rocprof::merge {

// Something a rank was doing, that a wait on it may be blamed on.
enum class DoingKind : std::uint8_t { kRegion, kMpiCall, kApiCall, kGpuWork };

// 24 bytes: the analysis keeps millions.
class Doing {
 public:
  static constexpr std::uint32_t kMaxLane = (1U << 24) - 1;
  Doing() = default;
  // `lane`: a region's thread and level, a call's thread, GPU work's queue (up to kMaxLane).
  Doing(std::uint64_t begin, std::uint64_t end, std::uint32_t name, std::uint32_t lane,
        DoingKind kind)
      : begin_ns(begin),
        end_ns(end),
        name(name),
        lane_kind_(std::min(lane, kMaxLane) << 8 | static_cast<std::uint32_t>(kind)) {}
  std::uint32_t lane() const noexcept { return lane_kind_ >> 8; }
  DoingKind kind() const noexcept { return static_cast<DoingKind>(lane_kind_ & 0xff); }

  std::uint64_t begin_ns = 0;
  std::uint64_t end_ns = 0;
  std::uint32_t name = 0;  // index into RankWaitInput::names

 private:
  std::uint32_t lane_kind_ = 0;
};

// The order of a rank's doings: by lane, then begin.
inline bool doing_order(const Doing& a, const Doing& b) {
  return a.lane() != b.lane() ? a.lane() < b.lane() : a.begin_ns < b.begin_ns;
}

}  // namespace rocprof::merge
