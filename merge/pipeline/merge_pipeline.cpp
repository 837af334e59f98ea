#include "merge/pipeline/merge_pipeline.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "lib/format/text.hpp"

#include "merge/export/encode_ahead.hpp"
#include "merge/files/staged_output.hpp"
#include "merge/parallel/group_exchange.hpp"
#include "merge/pipeline/cpu_budget.hpp"
#include "merge/pipeline/failure_text.hpp"
#include "merge/pipeline/freed_memory.hpp"
#include "merge/pipeline/merge_steps.hpp"
#include "merge/pipeline/merge_strategy.hpp"
#include "merge/pipeline/output_checks.hpp"
#include "merge/pipeline/partial_output.hpp"
#include "merge/pipeline/phase_timings.hpp"
#include "merge/report/html_report.hpp"
#include "merge/summary/summary.hpp"

namespace rocprof::merge {
namespace {

// Prints what `print` writes with control characters made visible: names are the
// application's bytes, and escape sequences in them must not reach the terminal.
void print_to_terminal(std::FILE* out, const std::function<void(std::FILE*)>& print) {
  char* buffer = nullptr;
  std::size_t size = 0;
  std::FILE* memory = open_memstream(&buffer, &size);
  if (memory == nullptr) return;
  print(memory);
  std::fclose(memory);
  const std::string text(buffer, size);
  std::free(buffer);  // NOLINT(cppcoreguidelines-no-malloc): open_memstream's buffer
  std::size_t begin = 0;
  while (begin < text.size()) {
    const std::size_t end = std::min(text.find('\n', begin), text.size());
    fmt::print(out, "{}\n", format::printable(std::string_view(text).substr(begin, end - begin)));
    begin = end + 1;
  }
}

// The output's staging file: the first process creates it and tells the others its name.
// False after a failure told.
bool stage_output(const MergeGroup& group, const std::string& output, bool archive, bool parts,
                  std::optional<StagedOutput>& staged) {
  std::string problem;
  std::vector<std::byte> name;
  if (group.leader()) {
    try {
      staged.emplace(output, archive, parts);
      const auto* bytes = reinterpret_cast<const std::byte*>(staged->path().data());
      name.assign(bytes, bytes + staged->path().size());
    } catch (const std::exception& error) {
      problem = error.what();
    }
  }
  group.broadcast(name);
  if (name.empty()) {
    if (group.leader()) fmt::print(stderr, "rocprof-merge: {}\n", problem);
    return false;
  }
  if (!group.leader())
    staged.emplace(output, archive,
                   std::string(reinterpret_cast<const char*>(name.data()), name.size()), parts);
  return true;
}

// Why sends and receives may differ in number, from what the input checks found.
std::string uneven_causes(const CheckedJob& checked) {
  std::vector<std::string> causes;
  if (checked.set.missing_ranks() > 0) causes.emplace_back("ranks without a file");
  if (!checked.set.untraced().empty()) causes.emplace_back("ranks the run did not trace");
  if (!checked.health.dropping.empty()) causes.emplace_back("records the recorder dropped");
  if (!checked.health.incomplete.empty()) causes.emplace_back("rank files that end early");
  if (causes.empty())
    return "no file is missing, incomplete or short of records: calls the MPI layer did not see?";
  std::string text;
  for (const std::string& cause : causes) text += (text.empty() ? "" : ", ") + cause;
  return text;
}

void print_matching(const MatchedJob& matched, const CheckedJob& checked, bool correct) {
  const CausalityReport& report = matched.report;
  fmt::print(
      "rocprof-merge: {} messages matched; receives before their send: {} after clock "
      "alignment, {} {} (largest shift {:.3f} us)\n",
      report.messages, report.violations_before, report.violations_after,
      correct ? "after correction" : "(correction off)",
      static_cast<double>(report.max_shift_ns) / 1000.0);
  // What stayed unmatched, and why (streams given up have no flows and no correction).
  if (const auto unmatched = matched.streams->unmatched(report.given_up); unmatched.total() > 0)
    fmt::print(stderr,
               "rocprof-merge: {} messages left unmatched: {} in streams whose sends and "
               "receives differ in number ({}), {} received from an unknown source "
               "(MPI_Sendrecv in files before format 1.1), {} in streams whose order "
               "contradicts itself\n",
               unmatched.total(), unmatched.uneven, uneven_causes(checked),
               unmatched.unknown_source, unmatched.given_up);
}

// An output that cannot be written, or a misspelt setting: refused before any work. Each
// process checks what it sees (nodes may differ: a directory of one node's own, a setting
// exported to some), and all stop together: one that stopped alone would leave the others
// waiting for it for ever. The first one that refused says why. True when refused.
bool refused(const MergeOptions& options, const MergeSettings& settings,
             const std::string& window_problem, const Sink& sink, const MergeGroup& group) {
  std::string refusal = output_problem(options, sink);
  if (refusal.empty()) refusal = settings.problem;
  if (refusal.empty()) refusal = window_problem;
  const int first = group.first_failed(!refusal.empty());
  if (first < 0) return false;
  if (group.index() == first)
    fmt::print(stderr, "rocprof-merge: {}{}\n", refusal,
               first > 0 ? fmt::format(" (as merge process {} sees it)", first) : "");
  return true;
}

// Files left out, ranks the run did not trace, and what the timeline lacks (incomplete files,
// dropped records: told even when quiet).
void tell_inputs(const CheckedJob& checked, const MergeGroup& group, bool quiet) {
  if (group.leader())
    for (const std::string& line : checked.set.skipped())
      fmt::print(stderr, "rocprof-merge: {}\n", line);
  if (!quiet && !checked.set.untraced().empty())
    fmt::print(stderr, "rocprof-merge: {}\n", checked.set.untraced());
  if (group.leader())
    for (const std::string& line : checked.health.warnings())
      fmt::print(stderr, "rocprof-merge: warning: {}\n", line);
}

// The summary: each process its ranks' (watched while the sink read them); the first adds up
// everyone's, one process's part at a time (the others keep only their own). Returns this
// process's ranks' inputs to the analysis (none if it is off).
std::vector<RankWaitInput> add_up(Summary& summary, const std::vector<const AlignedRank*>& block,
                                  const MergeGroup& group) {
  for (const AlignedRank* rank : block) rank->watch({});
  summary.end_watch();
  std::vector<RankWaitInput> mine = summary.take_wait_inputs();
  if (group.size() > 1) {
    Summary total;
    total.gather_wait_states(summary.gathers_wait_states());
    group.gather_to_leader(summary.serialize(),
                           [&total](const std::vector<std::byte>& part) { total.merge(part); });
    if (group.leader()) summary = std::move(total);
  }
  return mine;
}

// --timings: the matching's steps as the first process timed them.
std::string matching_steps(const MatchingSteps& steps) {
  return fmt::format(
      "the matching's steps on the first process: {:.3f} s walking {} message endpoints in {} "
      "rounds, {:.3f} s in {} exchanges with the other processes ({} sends handed to them), "
      "{:.3f} s counting what the correction left",
      steps.walking_s, steps.endpoints, steps.rounds, steps.exchanging_s, steps.exchanges,
      steps.handed, steps.rechecking_s);
}

// --timings: the analysis's steps as the first process timed them.
std::string analysis_steps(const Summary& summary) {
  const WaitStateReport& waits = summary.wait_states();
  const CriticalPath& path = summary.critical_path();
  const std::string rounds =
      waits.rounds > 1 ? fmt::format(" in {} rounds ({:.1f} MiB of them spilled)", waits.rounds,
                                     static_cast<double>(waits.spilled_bytes) / (1 << 20))
                       : std::string(" in 1 round");
  const std::string shared =
      waits.shared_ranks > 0
          ? fmt::format(", the doings of {} ranks that many waited for copied to every process",
                        waits.shared_ranks)
          : std::string();
  return fmt::format(
      "the analysis's steps on the first process: {:.3f} s finding waits{}, {:.3f} s blaming "
      "the receives of several messages, {:.3f} s gathering {} wait edges, {:.3f} s walking "
      "the critical path, {:.3f} s sharing it out{}; of the first three, {:.3f} s taking the "
      "rounds' message ends and collective calls, {:.3f} s in {} exchanges",
      waits.seconds.finding, rounds, waits.seconds.late_senders, waits.seconds.gathering,
      waits.edges.size(), path.walking_s, path.attributing_s, shared, waits.seconds.taking,
      waits.seconds.exchanging, waits.seconds.exchanges);
}

}  // namespace

MergePipeline::MergePipeline(MergeOptions options, bool command_line_read)
    : options_(std::move(options)),
      settings_(merge_settings_from_environment()),
      format_(sinks().find(options_.output)),
      sink_(format_ != nullptr ? format_->make() : nullptr) {
  // The window is read once, here; a problem with it refuses the merge before any work.
  if (!options_.window.empty()) {
    if (!options_.analyse)
      window_problem_ = "--window chooses what the analysis covers: not with --no-analysis";
    else
      window_ = parse_window(options_.window, window_problem_);
  }
  const bool may_start = command_line_read && sink_ && settings_.problem.empty() &&
                         window_problem_.empty() && output_problem(options_, *sink_).empty();
  early_.begin(options_, settings_, may_start);
}

struct MergePipeline::Run {
  Run(MergeGroup& group, PhaseReport& report, bool quiet)
      : group(group), report(report), quiet(quiet) {}
  MergeGroup& group;
  PhaseReport& report;
  const bool quiet;  // only the first process talks
  // prepare.
  std::unique_ptr<MergeStrategy> strategy;
  // check, stage: the output's staging file; match: what an unfinished one leaves behind.
  bool linked_parts = false;  // --h5-parts: each merging process writes a file the output links
  std::optional<StagedOutput> staged;
  std::optional<PartialOutput> partial;
  // check, align.
  std::optional<CheckedJob> checked;
  std::optional<AlignedJob> job;
  // The sink's early work reads the ranks: it stops before they go, however the run ends.
  struct StopEarly {
    explicit StopEarly(Sink& sink) : sink(sink) {}
    StopEarly(const StopEarly&) = delete;
    StopEarly& operator=(const StopEarly&) = delete;
    ~StopEarly() { sink.stop_early(); }
    Sink& sink;
  };
  std::optional<StopEarly> stop_early;
  // The summary, gathered from the rows the sink reads, not in a pass of its own.
  Summary summary;
  bool want_summary = false;
  unsigned cpus = 1;
  // match, correct.
  std::optional<MatchedJob> matched;
  std::vector<const AlignedRank*> block;  // this process's ranks
  bool left = false;                      // this process does not merge (MergeGroup::narrow)
  // `text` naming the output as the user gave it (StagedOutput::tell), once it is staged.
  std::string tell(std::string text) const { return staged ? staged->tell(std::move(text)) : text; }
  // emit.
  std::uint64_t events = 0;
  // summarise: this process's ranks' inputs to the analysis.
  std::vector<RankWaitInput> wait_inputs;
  // analyse: the phases every process timed, for --timings.
  std::vector<std::string> timing_report;
  std::size_t shared_phases = 0;
};

int MergePipeline::run(MergeGroup& group, PhaseReport& report) {
  // Under `srun -n K` every process runs this; only the first one talks.
  Run run(group, report, options_.quiet || !group.leader());
  if (const int refused = prepare(run); refused != 0) return refused;
  try {
    check(run);                                       // the rank files, together
    if (!stage(run)) return 1;                        // the output's staging file
    align(run);                                       // clock models; the summary watches
    if (!match_and_correct(run)) return 1;            // messages matched, times corrected
    if (run.left) return 0;                           // a process the job did not need
    if (!emit(run)) return 1;                         // the output written, by the sink
    summarise(run);                                   // the summary, on the first process
    return_freed_memory();                            // the writer's, the gatherers' ends
    analyse(run);                                     // wait states, critical path
    return_freed_memory();                            // the rounds', before the outputs
    if (!group.leader()) return 0;                    // the rest is the first process's
    if (!write_first_process_outputs(run)) return 1;  // summary, CSV, report, commit
  } catch (const InputError& error) {
    // Every process of a parallel merge finds the same problem: the first says it.
    if (group.leader()) fmt::print(stderr, "rocprof-merge: {}\n", run.tell(error.what()));
    return 1;
  } catch (const std::exception& error) {
    fmt::print(stderr, "rocprof-merge: {}\n", run.tell(failure_text(error)));
    return 1;
  }
  return 0;
}

// The sink, the settings and the output checked (refused: 2).
int MergePipeline::prepare(Run& run) {
  MergeGroup& group = run.group;
  if (!sink_) {
    if (group.leader())
      fmt::print(stderr, "rocprof-merge: cannot write '{}': the outputs are {}\n", options_.output,
                 sinks().known());
    return 2;
  }
  Sink& sink = *sink_;
  if (refused(options_, settings_, window_problem_, sink, group)) return 2;
  if (!run.quiet)
    if (const std::string advice = one_cpu_advice(); !advice.empty())
      fmt::print(stderr, "rocprof-merge: {}\n", advice);
  run.strategy =
      group.size() == 1 ? serial_strategy(group) : parallel_strategy(group, options_.scratch);
  return 0;
}

// Written under a staging name beside the output, moved into place once whole (false if it
// cannot be, on every process).
bool MergePipeline::stage(Run& run) {
  return stage_output(run.group, options_.output, sink_->archive(), run.linked_parts, run.staged);
}

void MergePipeline::check(Run& run) {
  RankSetOptions set_options;
  set_options.allow_missing = options_.allow_missing;
  set_options.skip_bad = options_.skip_bad;
  set_options.check_helpers =
      check_helper_setting(settings_.check_helpers, run.group.processes_on_node());
  set_options.check_helpers.every_chunk = options_.skip_bad;
  run.report.phase("checking rank files");
  RankSet set = run.strategy->check(options_, set_options, early_);
  // Every launched process checked its share; how many merge depends on what they found.
  const std::uint64_t records = set.records();
  // A parallel .h5 is written as parts the output links, unless one process merges it.
  run.linked_parts = options_.h5_parts && run.group.size() > 1 && sink_->links_parts();
  MergingLimits limits = settings_.merging;
  if (limits.cpus_per_process != 0)
    limits.cpus_per_process = sink_->cpus_per_merging_process(run.linked_parts);
  const int merging = run.group.choose_active(records, limits);
  run.linked_parts = run.linked_parts && merging > 1;
  if (merging < run.group.launched() && !run.quiet) {
    const std::string why = limits.most > 0
                                ? fmt::format("ROCPROF_MERGE_PROCESSES={}", limits.most)
                                : fmt::format(
                                      "{:.1f} M records; one merging process per {} Ki "
                                      "records, and per {} CPUs a node's processes share",
                                      static_cast<double>(records) / 1e6,
                                      limits.records_per_process >> 10, limits.cpus_per_process);
    fmt::print(
        "rocprof-merge: {} of the {} processes merge this job ({}); the others stop after "
        "the check\n",
        merging, run.group.launched(), why);
  }
  if (run.group.leader() && !run.quiet)
    if (const std::string advice = sink_->advice_before(options_.output, records); !advice.empty())
      fmt::print(stderr, "rocprof-merge: {}\n", advice);
  run.group.set_first_share(sink_->first_process_share(merging, run.linked_parts));
  run.checked.emplace(take_checked(std::move(set), run.group));
  tell_inputs(*run.checked, run.group, run.quiet);
}

// Where the analysis's message ends and collective calls past its memory go: --scratch, else
// beside the output. None (all held, told) if the file cannot be made there.
std::shared_ptr<EndSpill> MergePipeline::analysis_spill(const Run& run) const {
  std::string directory = options_.scratch;
  if (directory.empty()) directory = std::filesystem::path(options_.output).parent_path().string();
  try {
    return std::make_shared<EndSpill>(directory, settings_.analysis_memory);
  } catch (const std::exception& error) {
    if (!run.quiet)
      fmt::print(stderr, "rocprof-merge: warning: {}: the analysis holds its inputs in memory\n",
                 error.what());
    return nullptr;
  }
}

void MergePipeline::align(Run& run) {
  run.report.phase("reading clock models");
  run.job.emplace(align_ranks(*run.checked));
  run.stop_early.emplace(*sink_);
  Summary& summary = run.summary;
  summary.gather_wait_states(options_.analyse);
  summary.expect_ranks(run.job->block().size());
  summary.share_doings_among(run.job->all.size());
  if (options_.analyse) summary.spill_wait_states(analysis_spill(run), settings_.analysis_memory);
  // The analysis goes into the timeline too: gathered even when nothing is printed.
  run.want_summary = options_.analyse || (!options_.quiet && options_.print_summary) ||
                     !options_.csv_prefix.empty() || !options_.report.empty();
  run.cpus = cpus_per_process(run.group.processes_on_node());
  // Added up on threads of its own: the threads that read the ranks for the output only
  // copy their rows.
  summary.watch_on_threads(watch_threads(run.cpus));
  summary.finish_on_threads(run.cpus);
  if (run.want_summary)
    for (const AlignedRank* rank : run.job->block()) summary.watch(*rank);
}

bool MergePipeline::match_and_correct(Run& run) {
  AlignedJob& job = *run.job;
  const MatchContext context{
      run.group, early_, *sink_, run.report, *run.staged, options_.correct_causality, run.cpus};
  std::optional<GatheredSpills> gathered = gather_spills(job, run.checked->checked_here, context);
  if (!gathered) return false;
  // The processes left out of the merge helped check the files; they keep their spills
  // until the merging ones have walked them, then go.
  if (!run.group.narrow()) {
    run.group.release_left_out();
    run.left = true;
    return true;
  }
  run.matched = match_messages(job, std::move(*gathered), context);
  run.group.release_left_out();
  if (!run.matched) return false;
  // What a failed write leaves behind goes: the parts are named by the merging processes'
  // order.
  run.partial.emplace(run.staged->path(), sink_->archive(), run.group.leader(),
                      static_cast<std::size_t>(run.group.index()), options_.scratch,
                      run.linked_parts);
  const Corrected corrected = correct_times(job, *run.matched);
  if (corrected.rebased && !run.quiet)
    fmt::print(stderr,
               "rocprof-merge: some records fall {:.3f} s before the reference clock's zero "
               "even after correction (a wrong clock sample?): every time is moved that much "
               "later\n",
               static_cast<double>(corrected.moved_ns) / 1e9);
  // Early work on ranks the matching changed is done again in its turn, and summed up again.
  run.block = job.block();
  const std::vector<std::size_t> read_again = sink_->drop_early([&](std::size_t i) {
    return corrected.rebased || run.matched->report.changes(run.block[i]->rank());
  });
  if (run.want_summary)
    for (const std::size_t i : read_again) run.summary.watch_again(*run.block[i]);
  run.report.clear();
  if (!run.quiet) print_matching(*run.matched, *run.checked, options_.correct_causality);
  early_.drop_spill();  // matched (every process's walk ended before the report was shared)
  return true;
}

bool MergePipeline::emit(Run& run) {
  run.report.phase(fmt::format("writing {}", options_.output));
  run.partial->arm();
  PhaseReport& report = run.report;
  SinkJob to_write{
      .ranks = &run.job->all,
      .first_rank = run.job->first_rank,
      .last_rank = run.job->last_rank,
      .job_id = &run.checked->set.job_id(),
      .path = run.staged->path(),
      .progress = [&report](std::size_t done, std::size_t total) { report.update(done, total); },
      .helpers =
          settings_.encode_helpers ? *settings_.encode_helpers : EncodeAhead::helpers_for(run.cpus),
      .direct_io = settings_.direct_io,
      .linked_parts = run.linked_parts,
      .output_name = std::filesystem::path(options_.output).filename().string()};
  const std::optional<std::uint64_t> events =
      run.strategy->emit(*sink_, std::move(to_write), run.checked->weights,
                         {*run.staged, *run.partial, run.report, run.cpus});
  if (!events) return false;
  run.events = *events;
  run.partial->keep();  // written whole: what follows (the summary) cannot spoil it
  run.report.clear();
  return true;
}

void MergePipeline::summarise(Run& run) {
  if (!run.want_summary) return;
  run.report.phase("summarising");
  run.wait_inputs = add_up(run.summary, run.block, run.group);
  run.report.clear();
}

// Spread over the processes and each one's `cpus` threads: each keeps its ranks' inputs to
// the end; the first process keeps what they found, in the summary.
void MergePipeline::analyse(Run& run) {
  if (run.want_summary && run.summary.gathers_wait_states()) {
    run.report.phase("analysing wait states and the critical path");
    // The threads exchange over MPI from whichever comes last: one thread if MPI allows only
    // the main one.
    const std::size_t threads = run.group.any_thread_may_exchange() ? run.cpus : 1;
    run.summary.analyse(std::move(run.wait_inputs), GroupExchange(run.group), threads, window_);
    if (run.group.leader() && !run.summary.window_problem().empty())
      fmt::print(stderr, "rocprof-merge: warning: {}\n", run.summary.window_problem());
    run.report.clear();
  }
  if (options_.timings) run.timing_report = timing_lines(run.group, run.report.timings());
  // What follows is the first process's alone; --timings lists its phases after the shared
  // ones.
  run.shared_phases = run.report.timings().size();
}

bool MergePipeline::write_first_process_outputs(Run& run) {
  PhaseReport& report = run.report;
  const Summary& summary = run.summary;
  const MergeGroup& group = run.group;
  report.phase("printing the summary and its files");
  if (!run.quiet && options_.print_summary) {
    print_to_terminal(stdout, [&](std::FILE* memory) {
      summary.print(memory);
      run.checked->health.print(memory);
    });
  }
  if (!options_.csv_prefix.empty()) {
    std::string error;
    if (!summary.write_csv(options_.csv_prefix, error)) {
      fmt::print(stderr, "rocprof-merge: {}\n", error);
      return false;
    }
  }
  report.clear();
  if (!options_.report.empty()) {
    report.phase("writing the HTML report");
    std::string error;
    const ReportJob about{run.checked->set.job_id(), static_cast<std::size_t>(group.size()),
                          options_.output};
    if (!write_html_report(options_.report, summary, about, error)) {
      fmt::print(stderr, "rocprof-merge: {}\n", error);
      return false;
    }
    if (!run.quiet) fmt::print("rocprof-merge: report -> {}\n", options_.report);
    report.clear();
  }
  // The summary and CSV files stand on their own; a timeline written to a file that is
  // gone is not a success (nor one to add the analysis to).
  const auto output_gone = [&] {
    const std::string missing = run.partial->missing();
    if (!missing.empty()) fmt::print(stderr, "rocprof-merge: {}\n", run.staged->tell(missing));
    return !missing.empty();
  };
  if (output_gone()) return false;
  // The analysis in the timeline, for a format that stores it.
  if (run.want_summary) {
    report.phase("adding the analysis to the timeline");
    const std::vector<RegionImbalance> imbalance = summary.region_imbalance();
    JobAnalysis analysis{.imbalance = &imbalance};
    if (summary.gathers_wait_states()) {
      analysis.waits = &summary.wait_states();
      analysis.critical_path = &summary.critical_path();
    }
    std::string error;
    if (!sink_->add_analysis(run.staged->path(), analysis, error)) {
      fmt::print(stderr, "rocprof-merge: {}\n", run.staged->tell(error));
      return false;
    }
    report.clear();
  }
  if (output_gone()) return false;
  report.phase("moving the output into place");
  if (const std::string problem = run.staged->commit(); !problem.empty()) {
    fmt::print(stderr, "rocprof-merge: {}\n", problem);
    return false;
  }
  report.clear();
  if (options_.timings) {
    const PhaseTimes& all = report.timings();
    for (std::size_t i = run.shared_phases; i < all.size(); ++i)
      run.timing_report.push_back(fmt::format("{:.3f} s {}{}", all[i].second, all[i].first,
                                              group.size() > 1 ? " (first process only)" : ""));
    run.timing_report.push_back(matching_steps(run.matched->report.steps));
    if (options_.analyse) run.timing_report.push_back(analysis_steps(summary));
  }
  if (!run.quiet)
    fmt::print("rocprof-merge: {} ranks, {} events -> {}{}\n", run.job->ranks.size(), run.events,
               options_.output,
               group.size() > 1 ? fmt::format(" ({} merge processes)", group.size()) : "");
  for (const std::string& line : run.timing_report) fmt::print(stderr, "rocprof-merge: {}\n", line);
  return true;
}

}  // namespace rocprof::merge
