#include "merge/causality/spill_ahead.hpp"

namespace rocprof::merge {

bool SpillAhead::offer(std::int32_t rank, const format::RankFileReader& reader) noexcept {
  if (failure_ || !reader.reads_without_hdf5(format::table_of<format::MpiCallRow>())) return false;
  try {
    worker_.wait();  // one rank at a time: the spill is not shared between threads
    in_hand_ = std::make_unique<AlignedRank>(rank, reader);
    worker_.start([this] { spill_.add(*in_hand_); });
    spilled_.insert(rank);
    return true;
  } catch (...) {
    failure_ = std::current_exception();
    return false;
  }
}

void SpillAhead::finish() {
  if (!failure_) {
    try {
      worker_.wait();
    } catch (...) {
      failure_ = std::current_exception();
    }
  }
  if (failure_) std::rethrow_exception(failure_);
}

void SpillAhead::abandon() noexcept { worker_.wait_quietly(); }

}  // namespace rocprof::merge
