#include "merge/analysis/doing_list.hpp"

#include <algorithm>
#include <numeric>
#include <span>
#include <utility>

#include "merge/analysis/thread_buffer.hpp"

namespace rocprof::merge {
namespace {

constexpr std::uint64_t kFirstDistanceNs = 1000;
constexpr std::uint64_t kLargestDistanceNs = std::uint64_t{1} << 62;

// Puts `doings` in doing_order, in place: counted out by lane into the thread's buffer,
// sorted by begin within each lane, where they mostly came in order already, and copied back.
void put_in_doing_order(std::span<Doing> doings, std::size_t lanes) {
  if (std::is_sorted(doings.begin(), doings.end(), doing_order)) return;
  std::vector<std::size_t> ends(lanes + 1, 0);
  for (const Doing& doing : doings) ++ends[doing.lane() + 1];
  std::partial_sum(ends.begin(), ends.end(), ends.begin());
  std::vector<Doing>& sorted = ThreadBuffer<Doing>::at_least(doings.size());
  for (const Doing& doing : doings) sorted[ends[doing.lane()]++] = doing;
  const auto by_begin = [](const Doing& a, const Doing& b) { return a.begin_ns < b.begin_ns; };
  std::size_t begin = 0;
  for (std::size_t lane = 0; lane + 1 < ends.size(); ++lane) {
    const auto first = sorted.begin() + static_cast<std::ptrdiff_t>(begin);
    const auto last = sorted.begin() + static_cast<std::ptrdiff_t>(ends[lane]);
    if (!std::is_sorted(first, last, by_begin)) std::sort(first, last, by_begin);
    begin = ends[lane];
  }
  std::copy_n(sorted.begin(), doings.size(), doings.begin());
}

}  // namespace

bool DoingList::joined(Doing& into, const Doing& next) const {
  if (distance_ == 0 || into.lane() != next.lane() || into.kind() != next.kind() ||
      next.begin_ns < into.begin_ns || next.begin_ns > into.end_ns + distance_)
    return false;
  if (next.end_ns - next.begin_ns > into.end_ns - into.begin_ns) into.name = next.name;
  into.end_ns = std::max(into.end_ns, next.end_ns);
  return true;
}

void DoingList::add(const Doing& doing) {
  if (doing.end_ns < doing.begin_ns) return;
  const std::uint32_t lane = doing.lane();
  if (lane >= latest_of_lane_.size()) latest_of_lane_.resize(std::size_t{lane} + 1, kNone);
  std::size_t& latest = latest_of_lane_[lane];
  if (latest != kNone && joined(doings_[latest], doing)) return;
  latest = doings_.size();
  doings_.push_back(doing);
  if (doings_.size() <= budget_) return;
  while (doings_.size() > budget_ / 2 && distance_ < kLargestDistanceNs) {
    distance_ = std::max(distance_ * 2, kFirstDistanceNs);
    join_all();
  }
}

void DoingList::join_all() {
  // The doings up to sorted_ are in doing_order since the last join: only those added since
  // are ordered, then merged in (a sort of the whole list each time was most of a large
  // rank's analysis cost), through the thread's buffer.
  const auto middle = doings_.begin() + static_cast<std::ptrdiff_t>(sorted_);
  put_in_doing_order(std::span<Doing>(middle, doings_.end()), latest_of_lane_.size());
  std::vector<Doing>& merged = ThreadBuffer<Doing>::at_least(doings_.size());
  std::merge(doings_.begin(), middle, middle, doings_.end(), merged.begin(),
             [](const Doing& a, const Doing& b) { return doing_order(a, b); });
  std::copy_n(merged.begin(), doings_.size(), doings_.begin());
  std::size_t kept = 0;
  for (const Doing& doing : doings_)
    if (kept == 0 || !joined(doings_[kept - 1], doing)) doings_[kept++] = doing;
  doings_.resize(kept);
  sorted_ = kept;
  std::fill(latest_of_lane_.begin(), latest_of_lane_.end(), kNone);
  for (std::size_t i = 0; i < doings_.size(); ++i) latest_of_lane_[doings_[i].lane()] = i;
}

std::vector<Doing> DoingList::take() {
  put_in_doing_order(doings_, latest_of_lane_.size());
  std::vector<std::size_t>().swap(latest_of_lane_);
  sorted_ = 0;
  // The list's own memory goes with its doings: the budget it reserved is address space,
  // mapped only as far as doings came.
  return std::exchange(doings_, {});
}

}  // namespace rocprof::merge
