#include "merge/export/encode_ahead.hpp"

#include <algorithm>
#include <utility>

namespace rocprof::merge {

EncodeAhead::EncodeAhead(Plan plan, std::function<void(std::size_t)> encode_aside,
                         std::function<void(std::size_t)> claimed)
    : plan_(std::move(plan)),
      encode_aside_(std::move(encode_aside)),
      claimed_(std::move(claimed)),
      items_(plan_.weights.size()) {
  // An item heavier than the whole budget is the writer's.
  for (std::uint64_t& weight : plan_.weights)
    if (weight > plan_.budget) weight = 0;
  for (std::size_t i = 0; i < plan_.helpers; ++i) helpers_.emplace_back([this] { help(); });
}

EncodeAhead::~EncodeAhead() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  for (std::thread& helper : helpers_) helper.join();
}

std::size_t EncodeAhead::helpers_for(unsigned cores) noexcept {
  // Half the cores: the other half read and decode the chunks the encoders consume, and
  // write the output. None below three cores: two are busy already with the writer's thread
  // and the readers, and a helper would only add the copy of what it encodes. At most three
  // (the writer then mostly appends what they encoded).
  if (cores < 3) return 0;
  return std::clamp<std::size_t>(cores / 2, 1, 3);
}

bool EncodeAhead::may_claim_aside() const noexcept {
  // Never the writer's next item: the writer encodes that one straight into the output.
  if (next_claim_ >= items_.size() || next_claim_ <= writer_at_) return false;
  const std::uint64_t weight = plan_.weights[next_claim_];
  return weight != 0 && next_claim_ < writer_at_ + plan_.window && held_ + weight <= plan_.budget;
}

void EncodeAhead::encode_next_aside(std::unique_lock<std::mutex>& lock) {
  const std::size_t item = next_claim_++;
  items_[item].aside = true;
  held_ += plan_.weights[item];
  claimed_(item);
  lock.unlock();
  changed_.notify_all();  // another helper may claim the next one
  std::exception_ptr error;
  try {
    encode_aside_(item);
  } catch (...) {
    error = std::current_exception();
  }
  lock.lock();
  items_[item].ready = true;
  items_[item].error = error;
  changed_.notify_all();
}

void EncodeAhead::help() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(
        lock, [this] { return stopping_ || next_claim_ >= items_.size() || may_claim_aside(); });
    if (stopping_ || next_claim_ >= items_.size()) return;
    encode_next_aside(lock);
  }
}

bool EncodeAhead::take(std::size_t item) {
  std::unique_lock lock(mutex_);
  if (!items_[item].aside) {
    // Nobody claimed it (items are claimed in order, so it is the next one): the writer's.
    next_claim_ = item + 1;
    claimed_(item);
    lock.unlock();
    changed_.notify_all();
    return false;
  }
  // A helper has it. Rather than wait, the writer encodes later items aside meanwhile.
  while (!items_[item].ready) {
    if (may_claim_aside())
      encode_next_aside(lock);
    else
      changed_.wait(lock);
  }
  if (items_[item].error) std::rethrow_exception(items_[item].error);
  return true;
}

void EncodeAhead::written(std::size_t item) {
  {
    const std::lock_guard lock(mutex_);
    if (items_[item].aside) held_ -= plan_.weights[item];
    writer_at_ = item + 1;
  }
  changed_.notify_all();
}

}  // namespace rocprof::merge
