// Spills ranks' message endpoints on helper threads while the merge checks the next rank
// files: a serial merge of many small ranks otherwise spends its first phases on one core,
// mostly in HDF5 checking the files, and one of few large ranks in decoding their MPI calls.
// Only ranks whose MPI-call table reads without HDF5 (located while checked) go to the
// helpers; HDF5 itself stays on the merge's thread. Each rank has its place in the spill,
// reserved as it is offered, so the helpers may finish in any order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <unordered_set>
#include <vector>

#include "lib/format/background_worker.hpp"
#include "lib/format/rank_file_reader.hpp"
#include "merge/causality/messages.hpp"
#include "merge/events/aligned_rank.hpp"

namespace rocprof::merge {

class SpillAhead {
 public:
  // `helpers`: ranks spilled at once (at least one).
  explicit SpillAhead(EndpointSpill& spill, std::size_t helpers = 1);
  ~SpillAhead() = default;  // the helpers (declared last) wait for the ranks in hand
  SpillAhead(const SpillAhead&) = delete;
  SpillAhead& operator=(const SpillAhead&) = delete;

  // Spills `reader`'s rank on a helper, once one is free. False when it must be spilled on
  // the merge's thread instead, and after a rank failed. Never throws: the check of the
  // files goes on, and finish() reports the failure.
  bool offer(std::int32_t rank, const format::RankFileReader& reader) noexcept;
  // Waits for the ranks offered; rethrows the error of the first (in offer order) that failed.
  void finish();
  // Waits for the ranks offered, dropping their errors: the merge stops for another reason.
  void abandon() noexcept;
  bool spilled(std::int32_t rank) const { return spilled_.contains(rank); }

 private:
  struct Helper {
    std::unique_ptr<AlignedRank> rank;  // in hand (its clock model)
    std::size_t place = 0;              // its place in the spill (offer order)
    std::exception_ptr error;           // set by the helper's task
    format::BackgroundWorker worker;
  };
  void settle(Helper& helper) noexcept;  // waits for its rank; keeps the first failure

  EndpointSpill& spill_;
  std::unordered_set<std::int32_t> spilled_;
  std::exception_ptr failure_;
  std::size_t failed_place_ = 0;
  std::size_t next_ = 0;                          // the helper for the next rank (in turn)
  std::vector<std::unique_ptr<Helper>> helpers_;  // last: their ranks end first
};

}  // namespace rocprof::merge
