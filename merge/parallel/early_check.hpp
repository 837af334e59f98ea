// A parallel merge's share of the rank-file check, started before MPI: starting MPI mostly
// waits (on one node, mostly probing a network layer that merge/parallel/mpi_start.hpp now
// leaves out; starting takes longer across many nodes), and checking a share of many rank
// files can fill that wait. The share comes from the launcher's environment
// (launch_place_from_environment); once MPI has started, MPI's answer decides: a share
// checked for another place is dropped, and the check is done again.
#pragma once

#include <atomic>
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "merge/input/rank_set.hpp"
#include "merge/parallel/merge_group.hpp"
#include "merge/parallel/shared_check.hpp"

namespace rocprof::merge {

class EarlyCheck {
 public:
  // Starts checking `place`'s share of `inputs` on a thread of its own, which is the only
  // one to call HDF5 until take(). `checked` is called on that thread, as check_share does;
  // `refused` when the share is dropped, before its readers go. `helpers`: check helpers.
  EarlyCheck(std::vector<std::string> inputs, LaunchPlace place, RankSet::Checked checked,
             RankSet::Refused refused, CheckHelperSetting helpers = {});
  // Stops at the next file, waits, and drops the share (calling `refused`) if not taken.
  ~EarlyCheck();
  EarlyCheck(const EarlyCheck&) = delete;
  EarlyCheck& operator=(const EarlyCheck&) = delete;

  // Waits for the share; rethrows what the check threw. nullopt, after dropping the share,
  // when it was checked for another place than `group`'s. Once only.
  std::optional<CheckedShare> take(const MergeGroup& group);

 private:
  LaunchPlace place_;
  RankSet::Refused refused_;
  std::atomic<bool> stop_{false};
  std::future<CheckedShare> share_;  // last: its thread uses the members above
};

}  // namespace rocprof::merge
