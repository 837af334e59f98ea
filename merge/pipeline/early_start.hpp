// What a merge starts before MPI does. Starting MPI mostly waits, so a parallel merge checks
// its share of the rank files meanwhile (merge/parallel/early_check.hpp), and spills each
// checked rank's message endpoints on helpers at once (merge/causality/spill_ahead.hpp).
// MPI's placement has the last word: a share checked for another place is dropped with its
// spill.
#pragma once

#include <optional>
#include <string>

#include "merge/causality/messages.hpp"
#include "merge/causality/spill_ahead.hpp"
#include "merge/parallel/early_check.hpp"
#include "merge/parallel/merge_group.hpp"
#include "merge/pipeline/merge_options.hpp"

namespace rocprof::merge {

class EarlyStart {
 public:
  EarlyStart() = default;
  EarlyStart(const EarlyStart&) = delete;
  EarlyStart& operator=(const EarlyStart&) = delete;
  ~EarlyStart() = default;  // the check first, then the spill's helpers, then the spill

  // Before MPI starts, and before any thread: on one node, MPI's start leaves out what it
  // need not probe; in a parallel launch where `may_check` (the command line, settings and
  // output are fine), this process's share of the files starts being checked.
  void begin(const MergeOptions& options, const MergeSettings& settings, bool may_check);

  // Once MPI has started: the share checked early, if MPI placed this process where the
  // launcher said; nullopt otherwise (what was spilled is dropped). Rethrows what the check
  // threw.
  std::optional<CheckedShare> take_share(const MergeGroup& group);
  // The spill of this process's ranks' endpoints beside `output`, made now unless made early.
  void make_spill(const MergeGroup& group, const std::string& output);

  // For the check of the files: a checked rank's endpoints are spilled on a helper; a
  // refused set stops the spilling.
  RankSet::Checked on_checked();
  RankSet::Refused on_refused();

  EndpointSpill& spill() { return *spill_; }
  SpillAhead& ahead() { return *ahead_; }
  // The messages are matched: the spill's file goes.
  void drop_spill() noexcept;

 private:
  std::optional<EndpointSpill> spill_;
  std::optional<SpillAhead> ahead_;
  std::optional<EarlyCheck> check_;
};

}  // namespace rocprof::merge
