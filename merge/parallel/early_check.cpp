#include "merge/parallel/early_check.hpp"

#include <utility>

namespace rocprof::merge {

EarlyCheck::EarlyCheck(std::vector<std::string> inputs, LaunchPlace place, RankSet::Checked checked,
                       RankSet::Refused refused, CheckHelperSetting helpers)
    : place_(place), refused_(std::move(refused)) {
  share_ = std::async(std::launch::async, [this, inputs = std::move(inputs),
                                           checked = std::move(checked),
                                           helpers = std::move(helpers)] {
    return check_share(inputs, place_.index, place_.processes, checked, refused_, &stop_, helpers);
  });
}

EarlyCheck::~EarlyCheck() {
  if (!share_.valid()) return;  // taken
  stop_.store(true, std::memory_order_relaxed);
  share_.wait();
  // Work started on the checked files ends before their readers go (with share_).
  if (refused_) refused_();
}

std::optional<CheckedShare> EarlyCheck::take(const MergeGroup& group) {
  CheckedShare share = share_.get();  // rethrows
  if (place_.index == static_cast<std::size_t>(group.index()) &&
      place_.processes == static_cast<std::size_t>(group.size()))
    return share;
  if (refused_) refused_();  // before the readers go, with `share`
  return std::nullopt;
}

}  // namespace rocprof::merge
