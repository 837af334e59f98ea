// One rank's clock against the reference rank's, from its clock-sync samples: the offset is
// interpolated linearly in time between samples (clocks drift) and held constant before the
// first and after the last; the uncertainty is carried along the same way.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "lib/format/records.hpp"
#include "merge/clock/time_stretch.hpp"

namespace rocprof::merge {

// The offset's change over `elapsed_ns` at `slope`, truncated toward zero. Long double keeps
// ns exact over hours (64-bit mantissa); compiled for SSE3, the conversion to an integer is
// one truncating store (fisttp) instead of switching the x87 rounding mode twice, which
// dominated the cost of aligning timestamps. The same results either way (other CPUs: as
// their compiler converts).
#if defined(__x86_64__) || defined(__i386__)
#define ROCPROF_DRIFT_TARGET [[gnu::target("sse3")]]
#else
#define ROCPROF_DRIFT_TARGET
#endif
ROCPROF_DRIFT_TARGET std::int64_t drift_ns(std::uint64_t elapsed_ns, long double slope) noexcept;

class ClockModel {
 public:
  ClockModel() = default;  // no samples: the identity (a rank that is its own reference)
  explicit ClockModel(std::span<const format::ClockSampleRow> samples);

  // Local trace-clock time -> the reference rank's clock.
  std::uint64_t to_reference(std::uint64_t local_ns) const noexcept;
  std::int64_t offset_at(std::uint64_t local_ns) const noexcept;
  std::uint64_t uncertainty_at(std::uint64_t local_ns) const noexcept;
  std::size_t sample_count() const noexcept { return points_.size(); }

  // to_reference for one pass over a rank's times, which come mostly in order: each first
  // tries the stretch between samples of the time before, and searches only outside it. The
  // same results, without a search per time. One per thread; the model must outlive it.
  class Lookup {
   public:
    explicit Lookup(const ClockModel& model) noexcept : model_(model) {}
    explicit Lookup(const ClockModel&& model) = delete;  // would outlive it
    std::uint64_t to_reference(std::uint64_t local_ns) noexcept {
      if (!stretch_.holds(local_ns)) find(local_ns);
      const std::int64_t offset =
          slope_ == 0 ? base_offset_ : base_offset_ + drift_ns(local_ns - base_ns_, slope_);
      return static_cast<std::uint64_t>(static_cast<std::int64_t>(local_ns) + offset);
    }

   private:
    void find(std::uint64_t local_ns) noexcept;
    const ClockModel& model_;
    TimeStretch stretch_;  // where the fields below hold
    std::uint64_t base_ns_ = 0;
    std::int64_t base_offset_ = 0;
    long double slope_ = 0;
  };

 private:
  struct Point {
    std::uint64_t local_ns;
    std::int64_t offset_ns;
    std::uint64_t uncertainty_ns;
    long double slope;  // offset change per local ns up to the next point (0 for the last)
  };
  // Index of the last point at or before local_ns, or points_.size() if before all.
  std::size_t segment(std::uint64_t local_ns) const noexcept;
  std::vector<Point> points_;
};

}  // namespace rocprof::merge
