// A parallel merge (MPI): each process checks its share of the files (begun before MPI
// started, where it could be) and writes its block of ranks: as a part of the output, the
// parts then joined in process order, or into one output together.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "merge/files/exclusive_file.hpp"
#include "merge/parallel/shared_check.hpp"
#include "merge/pipeline/failure_text.hpp"
#include "merge/pipeline/merge_strategy.hpp"

namespace rocprof::merge {
namespace {

// Copy threads past this gained nothing in the merge benchmark (docs/PERFORMANCE.md).
constexpr unsigned kMostCopyThreads = 8;

class ParallelStrategy final : public MergeStrategy {
 public:
  ParallelStrategy(MergeGroup& group, std::string scratch)
      : group_(group), scratch_(std::move(scratch)) {}

  RankSet check(const MergeOptions& options, const RankSetOptions& set_options,
                EarlyStart& early) override {
    std::optional<CheckedShare> share = early.take_share(group_);
    early.make_spill(group_, options.output);
    // Each process checks a share of the files and the others take its word.
    if (share) return join_shares(group_, std::move(*share), set_options, early.on_refused());
    return check_shared(group_, options.inputs, set_options, early.on_checked(),
                        early.on_refused());
  }

  std::optional<std::uint64_t> emit(Sink& sink, SinkJob job,
                                    const std::vector<std::uint64_t>& weights,
                                    EmitContext context) override {
    const MergeShare share = group_.share(weights);
    job.share = &share;
    return sink.parallel() == Sink::Parallel::kParts ? emit_parts(sink, job, context)
                                                     : emit_together(sink, job, context);
  }

 private:
  // Each process writes its block as a part; the first part is the output itself, the others
  // are copied after it by every process.
  std::optional<std::uint64_t> emit_parts(Sink& sink, SinkJob job, EmitContext context) {
    const std::string target = job.path;
    const std::string part = part_path(target, group_.index(), scratch_);
    bool failed = false;
    std::uint64_t events = 0;
    try {
      // A part is a new file, never one (or a link) already there.
      if (part != target) create_empty(part);
      job.path = part;
      job.part_copied_after = part != target;
      events = sink.write(job);
    } catch (const OtherProcessFailed&) {
      failed = true;  // that process says why
    } catch (const std::exception& error) {
      fmt::print(stderr, "rocprof-merge: {}\n", context.staged.tell(failure_text(error)));
      failed = true;
    }
    // Phases of their own, so that --timings tells an uneven share of the ranks (the wait)
    // from the copy.
    context.report.phase("waiting for the other processes' parts");
    if (group_.any(failed)) return std::nullopt;
    events = group_.sum(events);
    context.report.phase("joining the parts");
    if (!join_parts(group_, target, std::min(context.cpus, kMostCopyThreads), scratch_))
      return std::nullopt;
    return events;
  }

  // The processes write one output together (the sink uses the share's collectives).
  std::optional<std::uint64_t> emit_together(Sink& sink, const SinkJob& job, EmitContext context) {
    std::uint64_t events = 0;
    try {
      events = sink.write(job);
      group_.finish_sends();
    } catch (const std::exception& error) {
      // The others may be waiting for this process (its chunks, or a collective call): the
      // job is aborted, after this process removed what it wrote (mpirun then stops the
      // others with SIGTERM, and each removes its own files).
      fmt::print(stderr, "rocprof-merge: {}\n", context.staged.tell(failure_text(error)));
      context.partial.discard();
      group_.abort(1);
    }
    return group_.sum(events);
  }

  MergeGroup& group_;
  std::string scratch_;
};

}  // namespace

std::unique_ptr<MergeStrategy> parallel_strategy(MergeGroup& group, std::string scratch) {
  return std::make_unique<ParallelStrategy>(group, std::move(scratch));
}

}  // namespace rocprof::merge
