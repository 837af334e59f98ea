#include "merge/causality/spill_ahead.hpp"

#include <algorithm>

namespace rocprof::merge {

SpillAhead::SpillAhead(EndpointSpill& spill, std::size_t helpers) : spill_(spill) {
  for (std::size_t i = 0; i < std::max<std::size_t>(helpers, 1); ++i)
    helpers_.push_back(std::make_unique<Helper>());
}

void SpillAhead::settle(Helper& helper) noexcept {
  helper.worker.wait_quietly();  // the task keeps its own error
  if (helper.error && (!failure_ || helper.place < failed_place_)) {
    failure_ = helper.error;
    failed_place_ = helper.place;
  }
  helper.error = nullptr;
}

bool SpillAhead::offer(std::int32_t rank, const format::RankFileReader& reader) noexcept {
  if (failure_ || !reader.reads_without_hdf5(format::table_of<format::MpiCallRow>())) return false;
  // In turn: a helper takes a rank once its previous one is spilled, so at most one rank per
  // helper is in hand (memory stays bounded).
  Helper& helper = *helpers_[next_];
  next_ = (next_ + 1) % helpers_.size();
  settle(helper);
  if (failure_) return false;
  try {
    helper.rank = std::make_unique<AlignedRank>(rank, reader);
    helper.place = spill_.reserve(*helper.rank);
    helper.worker.start([this, &helper] {
      try {
        spill_.fill(helper.place, *helper.rank);
      } catch (...) {
        helper.error = std::current_exception();
      }
    });
    spilled_.insert(rank);
    return true;
  } catch (...) {
    failure_ = std::current_exception();
    return false;
  }
}

void SpillAhead::finish() {
  for (const auto& helper : helpers_) settle(*helper);
  if (failure_) std::rethrow_exception(failure_);
}

void SpillAhead::abandon() noexcept {
  for (const auto& helper : helpers_) helper->worker.wait_quietly();
}

}  // namespace rocprof::merge
