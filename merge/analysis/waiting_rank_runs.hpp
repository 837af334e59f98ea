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
#include <span>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>

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
    ++counts_[item.waiting];
    if (file_ && held_.size() * sizeof(T) >= memory_) write_run();
  }
  // Items per waiting rank.
  std::map<std::int32_t, std::uint64_t> counts() const { return {counts_.begin(), counts_.end()}; }

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
    // What is held, through its order (the items stay where they were added).
    const std::vector<std::uint32_t>& order = held_order();
    const auto by_rank = [this](std::uint32_t item, std::int32_t rank) {
      return held_[item].waiting < rank;
    };
    const auto begin = std::lower_bound(order.begin(), order.end(), first, by_rank);
    const auto end = std::lower_bound(begin, order.end(), last, by_rank);
    taken.reserve(taken.size() + static_cast<std::size_t>(end - begin));
    for (auto at = begin; at != end; ++at) taken.push_back(held_[*at]);
    return taken;
  }

 private:
  struct Run {
    std::uint64_t offset;
    std::vector<std::pair<std::int32_t, std::uint64_t>> starts;  // rank, its first item
    std::uint64_t count;
  };

  // The held items' indices by waiting rank, each rank's in the order they were added: counted
  // out rank by rank (a run holds a few ranks' items, and moving the items themselves into
  // order would take a buffer of the budget besides, or scattered reads and writes).
  const std::vector<std::uint32_t>& held_order() {
    if (order_.size() == held_.size()) return order_;
    // Indices of 4 bytes: far more than a budget holds, or a process's share of a round.
    if (held_.size() > std::size_t{UINT32_MAX})
      throw std::length_error("too many analysis items held to order at once");
    absl::flat_hash_map<std::int32_t, std::uint64_t> firsts;  // rank -> its first place
    // Items come in runs of one waiting rank: its entry is looked up once per run (an entry
    // stays put until the next insertion, which only a new rank makes).
    std::uint64_t* entry = nullptr;
    std::int32_t entry_rank = 0;
    const auto entry_of = [&](std::int32_t rank) -> std::uint64_t& {
      if (entry == nullptr || rank != entry_rank) {
        entry = &firsts[rank];
        entry_rank = rank;
      }
      return *entry;
    };
    for (const T& item : held_) ++entry_of(item.waiting);
    std::vector<std::pair<std::int32_t, std::uint64_t>> ranks(firsts.begin(), firsts.end());
    std::sort(ranks.begin(), ranks.end());
    std::uint64_t place = 0;
    for (auto& [rank, count] : ranks) firsts[rank] = std::exchange(place, place + count);
    entry = nullptr;
    order_.resize(held_.size());
    for (std::size_t i = 0; i < held_.size(); ++i)
      order_[static_cast<std::size_t>(entry_of(held_[i].waiting)++)] =
          static_cast<std::uint32_t>(i);
    return order_;
  }

  // What is held, as a run in the file in waiting ranks' order, a staging piece at a time.
  void write_run() {
    const std::vector<std::uint32_t>& order = held_order();
    Run run{file_->claim(held_.size() * sizeof(T)), {}, held_.size()};
    std::vector<T> staged;
    staged.reserve(std::min(held_.size(), kStagedItems));
    for (std::size_t i = 0; i < order.size(); ++i) {
      const T& item = held_[order[i]];
      if (run.starts.empty() || item.waiting != run.starts.back().first)
        run.starts.emplace_back(item.waiting, i);
      staged.push_back(item);
      if (staged.size() == kStagedItems || i + 1 == order.size()) {
        file_->write_at(run.offset + (i + 1 - staged.size()) * sizeof(T),
                        std::as_bytes(std::span(staged)));
        staged.clear();
      }
    }
    runs_.push_back(std::move(run));
    held_.clear();
    order_.clear();
  }

  static constexpr std::size_t kStagedItems = std::size_t{1} << 14;
  std::shared_ptr<ScratchFile> file_;
  std::size_t memory_ = 0;
  std::vector<T> held_;
  std::vector<std::uint32_t> order_;  // of held_ (held_order), while it is up to date
  std::vector<Run> runs_;
  absl::flat_hash_map<std::int32_t, std::uint64_t> counts_;  // by waiting rank
};

// A process's share of the job's wait edges, until they go to the first process.
using ProcessEdges = WaitingRankRuns<WaitEdge>;

}  // namespace rocprof::merge
