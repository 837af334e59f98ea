#pragma once
// The stretch of time [from, until) over which a lookup's remembered answer holds. A pass over
// a rank's times, which come mostly in order, searches again only when a time leaves it
// (ClockModel::Lookup, StepFunction::Lookup).

#include <cstdint>

namespace rocprof::merge {

struct TimeStretch {
  std::uint64_t from = 1;  // empty until the first search
  std::uint64_t until = 0;
  bool holds(std::uint64_t t) const noexcept { return t >= from && t < until; }
};

}  // namespace rocprof::merge
