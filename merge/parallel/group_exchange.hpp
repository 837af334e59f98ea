// The analysis's exchange (merge/analysis/analysis_exchange.hpp) over the merge's processes.
#pragma once

#include "merge/analysis/analysis_exchange.hpp"
#include "merge/parallel/merge_group.hpp"

namespace rocprof::merge {

class GroupExchange final : public AnalysisExchange {
 public:
  explicit GroupExchange(const MergeGroup& group) : group_(group) {}
  std::size_t processes() const override { return static_cast<std::size_t>(group_.size()); }
  std::size_t index() const override { return static_cast<std::size_t>(group_.index()); }
  std::vector<std::vector<std::byte>> all_to_all(
      std::vector<std::vector<std::byte>> parts) const override {
    return group_.all_to_all(std::move(parts));
  }

 private:
  const MergeGroup& group_;
};

}  // namespace rocprof::merge
