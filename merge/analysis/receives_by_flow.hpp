#pragma once
// One round's receives of a merge process's ranks, found by their message's flow id.
//
// A flow id numbers a stream's messages in order (merge/events/flow_ids.hpp), and a round
// holds runs of consecutive numbers (merge/analysis/wait_input.hpp, kSliceRun). So the
// table has one hash-map entry per run of kRun numbers, with a bit per number present, and
// the run's receives in neighbouring slots: a map a run's length smaller than one entry per
// flow, and the sends of a stream, which arrive in order, meet their receives side by side.
// A flow met twice (damage) keeps its first receive.

#include <absl/container/flat_hash_map.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "merge/analysis/wait_input.hpp"

namespace rocprof::merge {

class ReceivesByFlow {
 public:
  struct Receive {
    const MessageEnd* end = nullptr;  // null: no receive of the flow
    std::uint32_t rank = 0;           // the caller's index of the receiving rank
  };

  // `ranks[r]` are the receives of rank index r; they must outlive the table.
  explicit ReceivesByFlow(const std::vector<std::vector<MessageEnd>>& ranks) {
    std::size_t count = 0;
    for (const std::vector<MessageEnd>& ends : ranks) count += ends.size();
    runs_.reserve(count / kRun + 1);
    for (const std::vector<MessageEnd>& ends : ranks)
      for (const MessageEnd& end : ends) runs_[end.flow / kRun].present |= bit_of(end.flow);
    std::uint32_t next = 0;
    for (auto& [key, run] : runs_) {
      run.first = next;
      next += static_cast<std::uint32_t>(std::popcount(run.present));
    }
    slots_.resize(next);
    for (std::uint32_t r = 0; r < ranks.size(); ++r)
      for (const MessageEnd& end : ranks[r]) {
        Receive& slot = slots_[slot_of(runs_.find(end.flow / kRun)->second, end.flow)];
        if (slot.end == nullptr) slot = {&end, r};
      }
  }

  // The flow's receive, or one whose `end` is null.
  Receive find(std::uint64_t flow) const {
    const auto found = runs_.find(flow / kRun);
    if (found == runs_.end() || (found->second.present & bit_of(flow)) == 0) return {};
    return slots_[slot_of(found->second, flow)];
  }

 private:
  static constexpr std::uint64_t kRun = 16;
  struct Run {
    std::uint32_t first = 0;    // slot of its lowest number present
    std::uint16_t present = 0;  // bit i: number (key * kRun + i) has a receive
  };
  static std::uint16_t bit_of(std::uint64_t flow) noexcept {
    return static_cast<std::uint16_t>(1U << (flow % kRun));
  }
  static std::size_t slot_of(const Run& run, std::uint64_t flow) noexcept {
    const auto below = static_cast<std::uint16_t>(run.present & (bit_of(flow) - 1U));
    return run.first + static_cast<std::size_t>(std::popcount(below));
  }

  absl::flat_hash_map<std::uint64_t, Run> runs_;
  std::vector<Receive> slots_;
};

}  // namespace rocprof::merge
