// One rank's clock against the reference rank's, from its clock-sync samples: the offset is
// interpolated linearly in time between samples (clocks drift) and held constant before the
// first and after the last; the uncertainty is carried along the same way.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "lib/format/records.hpp"

namespace rocprof::merge {

class ClockModel {
 public:
  ClockModel() = default;  // no samples: the identity (a rank that is its own reference)
  explicit ClockModel(std::span<const format::ClockSampleRow> samples);

  // Local trace-clock time -> the reference rank's clock.
  std::uint64_t to_reference(std::uint64_t local_ns) const noexcept;
  std::int64_t offset_at(std::uint64_t local_ns) const noexcept;
  std::uint64_t uncertainty_at(std::uint64_t local_ns) const noexcept;
  std::size_t sample_count() const noexcept { return points_.size(); }

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
