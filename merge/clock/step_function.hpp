// A rank's causality correction: a non-decreasing step function of time (on the
// clock-aligned, uncorrected axis) giving how far to move events forward from each point.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "merge/clock/time_stretch.hpp"

namespace rocprof::merge {

class StepFunction {
 public:
  std::uint64_t at(std::uint64_t t) const noexcept {
    const auto after = step_after(t);
    return after == steps_.begin() ? 0 : std::prev(after)->second;
  }
  // From `t` on, at least `shift` more than in force at `t` (later steps keep at least that:
  // moving a rank forward never undoes a fix of one of its receives).
  void raise(std::uint64_t t, std::uint64_t shift) {
    const std::uint64_t total = at(t) + shift;
    auto position =
        std::lower_bound(steps_.begin(), steps_.end(), std::make_pair(t, std::uint64_t{0}));
    if (position != steps_.end() && position->first == t)
      position->second = std::max(position->second, total);
    else
      position = steps_.insert(position, {t, total});
    for (auto it = position; it != steps_.end(); ++it) it->second = std::max(it->second, total);
  }
  std::uint64_t max() const noexcept { return steps_.empty() ? 0 : steps_.back().second; }
  const std::vector<std::pair<std::uint64_t, std::uint64_t>>& steps() const noexcept {
    return steps_;
  }
  void assign(std::vector<std::pair<std::uint64_t, std::uint64_t>> steps) {
    steps_ = std::move(steps);
  }

  // at() for one pass over a rank's times, mostly in order: each first tries the step of the
  // time before. The same results; one per thread; the function must outlive it and not
  // change meanwhile.
  class Lookup {
   public:
    explicit Lookup(const StepFunction& function) noexcept : function_(function) {}
    explicit Lookup(const StepFunction&& function) = delete;  // would outlive it
    std::uint64_t at(std::uint64_t t) noexcept {
      if (!stretch_.holds(t)) find(t);
      return value_;
    }

   private:
    void find(std::uint64_t t) noexcept {
      const auto after = function_.step_after(t);
      const bool before_all = after == function_.steps_.begin();
      stretch_ = {before_all ? 0 : std::prev(after)->first,
                  after == function_.steps_.end() ? ~std::uint64_t{0} : after->first};
      value_ = before_all ? 0 : std::prev(after)->second;
    }
    const StepFunction& function_;
    TimeStretch stretch_;  // where value_ holds
    std::uint64_t value_ = 0;
  };

 private:
  using Steps = std::vector<std::pair<std::uint64_t, std::uint64_t>>;
  // The first step after `t`: the one before it is in force at `t`.
  Steps::const_iterator step_after(std::uint64_t t) const noexcept {
    return std::upper_bound(steps_.begin(), steps_.end(), std::make_pair(t, ~std::uint64_t{0}));
  }
  Steps steps_;  // (time, cumulative shift)
};

}  // namespace rocprof::merge
