#include "merge/pipeline/merge_steps.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "merge/parallel/group_exchange.hpp"
#include "merge/pipeline/failure_text.hpp"

namespace rocprof::merge {

CheckedJob take_checked(RankSet set, const MergeGroup& group) {
  CheckedJob job{std::move(set), {}, {}, {}, 0, 0};
  job.health = InputHealth::of(job.set);
  // Every rank is checked by exactly one process, which spills it (recorded before the
  // readers of the block are replaced below).
  for (std::size_t i = 0; i < job.set.ranks().size(); ++i)
    if (job.set.ranks()[i].checked_here) job.checked_here.push_back(i);
  job.weights = job.set.weights();
  std::tie(job.first_rank, job.last_rank) = group.block(job.weights);
  // This process's ranks are read from their files, opened here if another process checked
  // them.
  for (std::size_t i = job.first_rank; i < job.last_rank; ++i) job.set.open_here(i);
  return job;
}

std::vector<const AlignedRank*> AlignedJob::block() const {
  return {all.begin() + static_cast<std::ptrdiff_t>(first_rank),
          all.begin() + static_cast<std::ptrdiff_t>(last_rank)};
}

AlignedJob align_ranks(const CheckedJob& checked) {
  AlignedJob job;
  job.ranks.reserve(checked.set.ranks().size());
  for (const auto& rank : checked.set.ranks()) job.ranks.emplace_back(rank.rank, *rank.reader);
  job.all.reserve(job.ranks.size());
  for (const auto& rank : job.ranks) job.all.push_back(&rank);
  job.first_rank = checked.first_rank;
  job.last_rank = checked.last_rank;
  return job;
}

std::optional<GatheredSpills> gather_spills(AlignedJob& job,
                                            const std::vector<std::size_t>& checked_here,
                                            const MatchContext& context) {
  const MergeGroup& group = context.group;
  context.report.phase("reading MPI messages");
  bool failed = false;
  std::vector<std::byte> mine;
  try {
    context.early.ahead().finish();  // its last rank; rethrows a damaged chunk's error
    for (std::size_t n = 0; n < checked_here.size(); ++n) {
      const AlignedRank& rank = job.ranks[checked_here[n]];
      if (!context.early.ahead().spilled(rank.rank())) context.early.spill().add(rank);
      context.report.update(n + 1, checked_here.size());
    }
    mine = context.early.spill().finish().serialize();
  } catch (const std::exception& error) {
    fmt::print(stderr, "rocprof-merge: {}\n", context.staged.tell(failure_text(error)));
    failed = true;
  }
  if (group.any(failed)) return std::nullopt;
  std::vector<SpillSummary> spills;
  std::vector<StreamCount> counts;
  std::vector<InvisibleTarget> invisible;
  for (const auto& bytes : group.all_gather(mine)) {
    spills.push_back(SpillSummary::deserialize(bytes));
    counts.insert(counts.end(), spills.back().streams.begin(), spills.back().streams.end());
    invisible.insert(invisible.end(), spills.back().invisible.begin(),
                     spills.back().invisible.end());
  }
  // Every spill is where the first process sees it: a parallel merge needs its outputs'
  // directory shared (each process walks its own spill, but the parts go there too).
  if (group.leader()) {
    try {
      check_spills_seen(spills);
    } catch (const std::exception& error) {
      fmt::print(stderr, "rocprof-merge: {}\n", context.staged.tell(failure_text(error)));
      failed = true;
    }
  }
  if (group.any(failed)) return std::nullopt;
  GatheredSpills gathered;
  gathered.streams = std::make_shared<StreamTable>(counts, std::move(invisible));
  // Ranks whose calls came from several threads: their flows are numbered as matched.
  std::vector<std::int32_t> threaded;
  for (const auto& spilled : spills)
    for (const auto& section : spilled.sections)
      if (section.threaded != 0) threaded.push_back(section.rank);
  for (auto& rank : job.ranks)
    rank.set_threaded(std::find(threaded.begin(), threaded.end(), rank.rank()) != threaded.end());
  // The merging processes walk every spill: their own, and those of the processes left out.
  const std::vector<int> places = group.merging_places();
  const auto merging = static_cast<std::size_t>(
      std::count_if(places.begin(), places.end(), [](int place) { return place >= 0; }));
  gathered.walkers = spill_walkers(spills, places, merging);
  gathered.spills = std::move(spills);
  return gathered;
}

std::optional<MatchedJob> match_messages(AlignedJob& job, GatheredSpills gathered,
                                         const MatchContext& context) {
  const MergeGroup& group = context.group;
  MatchedJob matched;
  matched.streams = std::move(gathered.streams);
  // Every merging process walks its spill and its share of those left out; the sink may
  // start meanwhile, on the other CPUs, on the ranks as they are now, uncorrected.
  context.report.phase("matching MPI messages");
  for (auto& rank : job.ranks) rank.set_streams(matched.streams);
  context.sink.begin_early(job.block(),
                           std::min<unsigned>(context.cpus > 0 ? context.cpus - 1 : 0, 3));
  try {
    matched.report = check_causality(gathered.spills, *matched.streams, context.correct,
                                     GroupExchange(group), gathered.walkers);
  } catch (const std::exception& error) {
    // The others may wait for this process's part of the walk for ever: the merge ends.
    fmt::print(stderr, "rocprof-merge: {}\n", context.staged.tell(failure_text(error)));
    if (group.size() > 1) group.abort(1);
    context.sink.stop_early();
    return std::nullopt;
  }
  context.sink.stop_early();  // before the ranks and streams change
  return matched;
}

Corrected correct_times(AlignedJob& job, const MatchedJob& matched) {
  const CausalityReport& report = matched.report;
  for (const std::uint32_t stream : report.given_up) matched.streams->unmatch(stream);
  for (const auto& receive : report.repaired)
    matched.streams->set_received_message(receive.stream, receive.place, receive.message);
  for (auto& rank : job.ranks) {
    if (const auto found = report.corrections.find(rank.rank()); found != report.corrections.end())
      rank.set_correction(found->second);
    rank.set_streams(matched.streams);
  }
  std::uint64_t earliest = std::numeric_limits<std::uint64_t>::max();
  for (const auto& rank : job.ranks) earliest = std::min(earliest, rank.start_internal_ns());
  constexpr std::uint64_t kBase = AlignedRank::kInternalBase;
  Corrected corrected;
  if (earliest < kBase) {
    for (auto& rank : job.ranks) rank.set_time_base(earliest);
    corrected.rebased = true;
    corrected.moved_ns = kBase - earliest;
  }
  return corrected;
}

}  // namespace rocprof::merge
