// How the pipeline's steps are spread over processes. The steps that differ between a serial
// merge and a parallel one (MPI, `srun -n K rocprof-merge`) are behind this interface: the
// check of the rank files (one process checks them all, or each its share) and the writing
// of the output (one process writes it, or each its block of ranks, as parts or together).
// The steps in between use the merge group's collectives, which a group of one answers
// alone.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "merge/export/sink.hpp"
#include "merge/files/staged_output.hpp"
#include "merge/input/rank_set.hpp"
#include "merge/parallel/merge_group.hpp"
#include "merge/pipeline/early_start.hpp"
#include "merge/pipeline/partial_output.hpp"
#include "merge/pipeline/phase_report.hpp"

namespace rocprof::merge {

class MergeStrategy {
 public:
  MergeStrategy() = default;
  virtual ~MergeStrategy() = default;
  MergeStrategy(const MergeStrategy&) = delete;
  MergeStrategy& operator=(const MergeStrategy&) = delete;

  // Every rank file of the job checked, this process's own readers open for those it
  // checked. Throws InputError when the set is refused.
  virtual RankSet check(const MergeOptions& options, const RankSetOptions& set_options,
                        EarlyStart& early) = 0;

  // This process's share of the output written through `sink` (`job` says where and what;
  // its share is filled in here). Returns the output's events, or nullopt after a failure
  // already told (what this process wrote is removed).
  struct EmitContext {
    const StagedOutput& staged;  // names in messages
    PartialOutput& partial;
    PhaseReport& report;
    unsigned cpus = 1;  // CPUs this process may count on
  };
  virtual std::optional<std::uint64_t> emit(Sink& sink, SinkJob job,
                                            const std::vector<std::uint64_t>& weights,
                                            EmitContext context) = 0;
};

// One process does every step.
std::unique_ptr<MergeStrategy> serial_strategy(const MergeGroup& group);
// The group's processes share the work; parts go to `scratch` (MergeOptions::scratch).
std::unique_ptr<MergeStrategy> parallel_strategy(MergeGroup& group, std::string scratch);

}  // namespace rocprof::merge
