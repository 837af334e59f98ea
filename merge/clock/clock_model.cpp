#include "merge/clock/clock_model.hpp"

#include <algorithm>

namespace rocprof::merge {

ClockModel::ClockModel(std::span<const format::ClockSampleRow> samples) {
  for (const auto& sample : samples)
    points_.push_back({sample.local_ns, sample.offset_ns, sample.uncertainty_ns, 0.0L});
  std::sort(points_.begin(), points_.end(),
            [](const Point& a, const Point& b) { return a.local_ns < b.local_ns; });
  // Two samples at one instant: keep the more certain one.
  std::vector<Point> unique;
  for (const Point& point : points_) {
    if (!unique.empty() && unique.back().local_ns == point.local_ns) {
      if (point.uncertainty_ns < unique.back().uncertainty_ns) unique.back() = point;
    } else {
      unique.push_back(point);
    }
  }
  points_ = std::move(unique);
  // Precomputed so that aligning a timestamp multiplies rather than divides (drift_ns).
  for (std::size_t i = 0; i + 1 < points_.size(); ++i)
    points_[i].slope = static_cast<long double>(points_[i + 1].offset_ns - points_[i].offset_ns) /
                       static_cast<long double>(points_[i + 1].local_ns - points_[i].local_ns);
}

std::size_t ClockModel::segment(std::uint64_t local_ns) const noexcept {
  return in_force_at(points_, local_ns, [](const Point& point) { return point.local_ns; });
}

std::int64_t ClockModel::offset_at(std::uint64_t local_ns) const noexcept {
  if (points_.empty()) return 0;
  const std::size_t i = segment(local_ns);
  if (i == points_.size()) return points_.front().offset_ns;
  if (i + 1 == points_.size()) return points_.back().offset_ns;
  const Point& a = points_[i];
  return a.offset_ns + drift_ns(local_ns - a.local_ns, a.slope);
}

ROCPROF_DRIFT_TARGET std::int64_t drift_ns(std::uint64_t elapsed_ns, long double slope) noexcept {
  return static_cast<std::int64_t>(static_cast<long double>(elapsed_ns) * slope);
}

std::uint64_t ClockModel::uncertainty_at(std::uint64_t local_ns) const noexcept {
  if (points_.empty()) return 0;
  const std::size_t i = segment(local_ns);
  if (i == points_.size()) return points_.front().uncertainty_ns;
  if (i + 1 == points_.size()) return points_.back().uncertainty_ns;
  return std::max(points_[i].uncertainty_ns, points_[i + 1].uncertainty_ns);
}

void ClockModel::Lookup::find(std::uint64_t local_ns) noexcept {
  // As offset_at: held before the first sample and after the last, linear in between.
  const std::vector<Point>& points = model_.points_;
  constexpr std::uint64_t kEnd = ~std::uint64_t{0};
  slope_ = 0;
  if (points.empty()) {
    stretch_ = {0, kEnd};
    base_offset_ = 0;
    return;
  }
  const std::size_t i = model_.segment(local_ns);
  if (i == points.size()) {
    stretch_ = {0, points.front().local_ns};
    base_offset_ = points.front().offset_ns;
  } else if (i + 1 == points.size()) {
    stretch_ = {points.back().local_ns, kEnd};
    base_offset_ = points.back().offset_ns;
  } else {
    stretch_ = {points[i].local_ns, points[i + 1].local_ns};
    base_ns_ = points[i].local_ns;
    base_offset_ = points[i].offset_ns;
    slope_ = points[i].slope;
  }
}

std::uint64_t ClockModel::to_reference(std::uint64_t local_ns) const noexcept {
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(local_ns) + offset_at(local_ns));
}

}  // namespace rocprof::merge
