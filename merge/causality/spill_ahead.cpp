#include "merge/causality/spill_ahead.hpp"

namespace rocprof::merge {

bool SpillAhead::offer(std::int32_t rank, const format::RankFileReader& reader) {
  if (!reader.reads_without_hdf5(format::table_of<format::MpiCallRow>())) return false;
  worker_.wait();  // one rank at a time: the spill is not shared between threads
  in_hand_ = std::make_unique<AlignedRank>(rank, reader);
  worker_.start([this] { spill_.add(*in_hand_); });
  spilled_.insert(rank);
  return true;
}

void SpillAhead::finish() { worker_.wait(); }

}  // namespace rocprof::merge
