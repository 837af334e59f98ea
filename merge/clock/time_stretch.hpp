#pragma once
// The stretch of time [from, until) over which a lookup's remembered answer holds. A pass over
// a rank's times, which come mostly in order, searches again only when a time leaves it
// (ClockModel::Lookup, StepFunction::Lookup). And the search itself: which of a time-ordered
// list is in force at a time.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rocprof::merge {

struct TimeStretch {
  std::uint64_t from = 1;  // empty until the first search
  std::uint64_t until = 0;
  bool holds(std::uint64_t t) const noexcept { return t >= from && t < until; }
};

// Index of the last of `items` (in the order of `time_of`) starting at or before `t`: the
// one in force at `t`; items.size() if `t` is before them all.
template <typename Item, typename TimeOf>
std::size_t in_force_at(const std::vector<Item>& items, std::uint64_t t, TimeOf time_of) noexcept {
  const auto after =
      std::upper_bound(items.begin(), items.end(), t,
                       [&](std::uint64_t time, const Item& item) { return time < time_of(item); });
  return after == items.begin() ? items.size()
                                : static_cast<std::size_t>(after - items.begin()) - 1;
}

}  // namespace rocprof::merge
