// Items of a merge process's analysis keyed by the rank that waited (wait edges, late-sender
// candidates), as the analysis finds them (in no order): held up to a budget, past it written
// to the process's scratch file in runs ordered by waiting rank. They are then taken a range
// of waiting ranks at a time (wait_states.cpp), each range read from every run, so that the
// process never holds them all.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <numeric>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "merge/analysis/wait_edge.hpp"
#include "merge/files/scratch_file.hpp"

namespace rocprof::merge {

// T: trivially copyable, with an std::int32_t `waiting`.
template <typename T>
class WaitingRankRuns {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  WaitingRankRuns() = default;  // every item held
  WaitingRankRuns(std::shared_ptr<ScratchFile> file, std::size_t memory)
      : file_(std::move(file)), memory_(std::max<std::size_t>(memory, sizeof(T))) {}

  // Throws std::runtime_error on a write error.
  void add(const T& item) {
    // With a file, the held items get their budget at once: grown by doubling they would take
    // up to twice it.
    if (file_ && held_.capacity() == 0) held_.reserve(memory_ / sizeof(T) + 1);
    held_.push_back(item);
    held_ordered_ = false;
    ++counts_[item.waiting];
    if (file_ && held_.size() * sizeof(T) >= memory_) write_run();
  }
  // Items per waiting rank.
  const std::map<std::int32_t, std::uint64_t>& counts() const noexcept { return counts_; }

  // The items of waiting ranks [first, last), in no order. Throws std::runtime_error on a
  // read error.
  std::vector<T> take(std::int32_t first, std::int32_t last) {
    std::vector<T> taken;
    for (const Run& run : runs_) {
      const auto by_rank = [](const auto& start, std::int32_t rank) { return start.first < rank; };
      const auto begin = std::lower_bound(run.starts.begin(), run.starts.end(), first, by_rank);
      const auto end = std::lower_bound(begin, run.starts.end(), last, by_rank);
      if (begin == end) continue;
      const std::uint64_t from = begin->second;
      const std::uint64_t to = end == run.starts.end() ? run.count : end->second;
      const std::size_t at = taken.size();
      taken.resize(at + static_cast<std::size_t>(to - from));
      file_->read(run.offset + from * sizeof(T),
                  std::as_writable_bytes(std::span(taken).subspan(at)));
    }
    if (!held_ordered_) {
      order_by_waiting(held_);
      held_ordered_ = true;
    }
    const auto by_rank = [](const T& item, std::int32_t rank) { return item.waiting < rank; };
    const auto begin = std::lower_bound(held_.begin(), held_.end(), first, by_rank);
    const auto end = std::lower_bound(begin, held_.end(), last, by_rank);
    taken.insert(taken.end(), begin, end);
    return taken;
  }

 private:
  struct Run {
    std::uint64_t offset;
    std::vector<std::pair<std::int32_t, std::uint64_t>> starts;  // rank, its first item
    std::uint64_t count;
  };

  // In place and stable. The items are ordered as indices (a few bytes each) and then moved
  // into place cycle by cycle: std::stable_sort of the items themselves would take a buffer
  // of half the budget besides.
  static void order_by_waiting(std::vector<T>& items) {
    const auto by_waiting = [](const T& a, const T& b) { return a.waiting < b.waiting; };
    if (items.size() > std::uint64_t{UINT32_MAX}) {
      std::stable_sort(items.begin(), items.end(), by_waiting);
      return;
    }
    std::vector<std::uint32_t> order(items.size());
    std::iota(order.begin(), order.end(), 0U);
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return by_waiting(items[a], items[b]);
    });
    // order[i]: the item that belongs at i. Each cycle of the permutation is walked once.
    std::vector<bool> placed(items.size());
    for (std::size_t start = 0; start < items.size(); ++start) {
      if (placed[start]) continue;
      const T first = items[start];
      std::size_t at = start;
      for (std::size_t from = order[at]; from != start; at = from, from = order[at]) {
        items[at] = items[from];
        placed[at] = true;
      }
      items[at] = first;
      placed[at] = true;
    }
  }

  void write_run() {
    order_by_waiting(held_);
    Run run{file_->append(std::as_bytes(std::span(held_))), {}, held_.size()};
    for (std::size_t i = 0; i < held_.size(); ++i)
      if (i == 0 || held_[i].waiting != held_[i - 1].waiting)
        run.starts.emplace_back(held_[i].waiting, i);
    runs_.push_back(std::move(run));
    held_.clear();
  }

  std::shared_ptr<ScratchFile> file_;
  std::size_t memory_ = 0;
  std::vector<T> held_;
  bool held_ordered_ = false;
  std::vector<Run> runs_;
  std::map<std::int32_t, std::uint64_t> counts_;
};

// A process's share of the job's wait edges, until they go to the first process.
using ProcessEdges = WaitingRankRuns<WaitEdge>;

}  // namespace rocprof::merge
