// Spills a rank's message endpoints on a helper thread while the merge checks the next rank
// files: a serial merge of many small ranks otherwise spends its first phases on one core,
// mostly in HDF5 checking the files. Only ranks whose MPI-call table reads without HDF5
// (located while checked) go to the helper; HDF5 itself stays on the merge's thread.
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <unordered_set>

#include "lib/format/background_worker.hpp"
#include "lib/format/rank_file_reader.hpp"
#include "merge/causality/messages.hpp"
#include "merge/events/aligned_rank.hpp"

namespace rocprof::merge {

class SpillAhead {
 public:
  explicit SpillAhead(EndpointSpill& spill) : spill_(spill) {}
  ~SpillAhead() = default;  // the worker (declared last) waits for the rank in hand
  SpillAhead(const SpillAhead&) = delete;
  SpillAhead& operator=(const SpillAhead&) = delete;

  // Spills `reader`'s rank on the helper once the rank before it is done. False when it must
  // be spilled on the merge's thread instead, and after a rank failed. Never throws: the
  // check of the files goes on, and finish() reports the failure.
  bool offer(std::int32_t rank, const format::RankFileReader& reader) noexcept;
  // Waits for the last rank offered; rethrows the first error of any.
  void finish();
  // Waits for the last rank offered, dropping its error: the merge stops for another reason.
  void abandon() noexcept;
  bool spilled(std::int32_t rank) const { return spilled_.contains(rank); }

 private:
  EndpointSpill& spill_;
  std::unique_ptr<AlignedRank> in_hand_;  // the rank being spilled (its clock model)
  std::unordered_set<std::int32_t> spilled_;
  std::exception_ptr failure_;
  format::BackgroundWorker worker_;
};

}  // namespace rocprof::merge
