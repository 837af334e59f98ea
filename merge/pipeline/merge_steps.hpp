// The pipeline's steps between the check of the files and the output, each with what it
// takes and what it hands on. Every process of a parallel merge runs each of them; the
// collectives they use are the merge group's (a group of one answers alone).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "merge/causality/messages.hpp"
#include "merge/events/aligned_rank.hpp"
#include "merge/events/stream_table.hpp"
#include "merge/export/sink.hpp"
#include "merge/files/staged_output.hpp"
#include "merge/input/input_health.hpp"
#include "merge/input/rank_set.hpp"
#include "merge/parallel/merge_group.hpp"
#include "merge/pipeline/early_start.hpp"
#include "merge/pipeline/phase_report.hpp"

namespace rocprof::merge {

// check: the job's rank files, checked (merge_strategy.hpp), and this process's block of
// them open here.
struct CheckedJob {
  RankSet set;
  InputHealth health;
  std::vector<std::size_t> checked_here;  // ranks this process checked: it spills them
  std::vector<std::uint64_t> weights;     // each rank's rows: blocks of about equal cost
  std::size_t first_rank = 0;             // this process's block [first_rank, last_rank)
  std::size_t last_rank = 0;
};
CheckedJob take_checked(RankSet set, const MergeGroup& group);

// align: every rank read on the reference clock (not yet corrected).
struct AlignedJob {
  std::vector<AlignedRank> ranks;
  std::vector<const AlignedRank*> all;  // every rank, in rank order
  std::size_t first_rank = 0;           // this process's block
  std::size_t last_rank = 0;
  std::vector<const AlignedRank*> block() const;
};
AlignedJob align_ranks(const CheckedJob& checked);

// match, in two steps. First every launched process finishes its message spill and they
// share their summaries (nullopt after a failure told, on every process). Then, once those
// left out of the merge have left (MergeGroup::narrow), the merging processes match the
// messages of every spill together (check_causality: each walks its own spill and a share of
// those left out), the report the same everywhere. Meanwhile their other CPUs let the sink
// start early (Sink::begin_early). nullopt after a failure told; a failure inside the shared
// walk ends the whole merge (the others would wait for this process for ever).
struct GatheredSpills {
  std::vector<SpillSummary> spills;    // in launch order
  std::vector<std::uint32_t> walkers;  // by spill: the merging process that walks it
  std::shared_ptr<StreamTable> streams;
};
struct MatchedJob {
  CausalityReport report;
  std::shared_ptr<StreamTable> streams;
};
struct MatchContext {
  const MergeGroup& group;
  EarlyStart& early;
  Sink& sink;
  PhaseReport& report;
  const StagedOutput& staged;
  bool correct = true;  // compute the causality correction
  unsigned cpus = 1;    // CPUs this process may count on
};
std::optional<GatheredSpills> gather_spills(AlignedJob& job,
                                            const std::vector<std::size_t>& checked_here,
                                            const MatchContext& context);
std::optional<MatchedJob> match_messages(AlignedJob& job, GatheredSpills gathered,
                                         const MatchContext& context);

// correct: the matching's corrections and streams applied to every rank. Outputs are on the
// reference clock, unless a corrected time would still fall before its zero (a wrong clock
// sample no message corrected): every time is then moved later, the earliest rank's start
// at 0 (`moved_ns` later). Every process knows every rank's start and correction: all find
// the same.
struct Corrected {
  bool rebased = false;
  std::uint64_t moved_ns = 0;
};
Corrected correct_times(AlignedJob& job, const MatchedJob& matched);

}  // namespace rocprof::merge
