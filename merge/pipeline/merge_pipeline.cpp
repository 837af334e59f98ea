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
// everyone's, one process's part at a time (the others keep only their own). Then the
// analysis, spread over the processes (a lone one over `cpus` threads): each keeps its
// ranks' inputs to the end.
void add_up(Summary& summary, const std::vector<const AlignedRank*>& block, const MergeGroup& group,
            PhaseReport& report, unsigned cpus, const std::optional<WindowSpec>& window) {
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
  if (!summary.gathers_wait_states()) return;
  report.clear();
  report.phase("analysing wait states and the critical path");
  summary.analyse(std::move(mine), GroupExchange(group), cpus, window);
  if (group.leader() && !summary.window_problem().empty())
    fmt::print(stderr, "rocprof-merge: warning: {}\n", summary.window_problem());
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

int MergePipeline::run(MergeGroup& group, PhaseReport& report) {
  // Under `srun -n K` every process runs this; only the first one talks.
  const bool quiet = options_.quiet || !group.leader();
  if (!sink_) {
    if (group.leader())
      fmt::print(stderr, "rocprof-merge: cannot write '{}': the outputs are {}\n", options_.output,
                 sinks().known());
    return 2;
  }
  Sink& sink = *sink_;
  if (refused(options_, settings_, window_problem_, sink, group)) return 2;
  if (!quiet)
    if (const std::string advice = one_cpu_advice(); !advice.empty())
      fmt::print(stderr, "rocprof-merge: {}\n", advice);
  // Written under a staging name beside the output, moved into place once whole.
  std::optional<StagedOutput> staged;
  // --h5-parts: each process writes a file of its own, which the output links.
  const bool linked_parts = options_.h5_parts && group.size() > 1 && sink.links_parts();
  if (!stage_output(group, options_.output, sink.archive(), linked_parts, staged)) return 1;
  PartialOutput partial(staged->path(), sink.archive(), group.leader(),
                        static_cast<std::size_t>(group.index()), options_.scratch, linked_parts);
  const std::unique_ptr<MergeStrategy> strategy =
      group.size() == 1 ? serial_strategy(group) : parallel_strategy(group, options_.scratch);
  try {
    // check
    RankSetOptions set_options;
    set_options.allow_missing = options_.allow_missing;
    set_options.skip_bad = options_.skip_bad;
    set_options.check_helpers =
        check_helper_setting(settings_.check_helpers, group.processes_on_node());
    set_options.check_helpers.every_chunk = options_.skip_bad;
    report.phase("checking rank files");
    group.set_first_share(sink.first_process_share(group.size(), linked_parts));
    CheckedJob checked = take_checked(strategy->check(options_, set_options, early_), group);
    tell_inputs(checked, group, quiet);

    // align
    report.phase("reading clock models");
    AlignedJob job = align_ranks(checked);
    // The sink's early work reads these ranks: it stops before they go, however this ends.
    struct StopEarly {
      Sink& sink;
      ~StopEarly() { sink.stop_early(); }
    } const stop_early{sink};
    // The summary: gathered from the rows the sink reads, not in a pass of its own.
    Summary summary;
    summary.gather_wait_states(options_.analyse);
    summary.expect_ranks(job.block().size());
    // The analysis goes into the timeline too: gathered even when nothing is printed.
    const bool want_summary = options_.analyse || (!options_.quiet && options_.print_summary) ||
                              !options_.csv_prefix.empty() || !options_.report.empty();
    const unsigned cpus = cpus_per_process(group.processes_on_node());
    // Added up on threads of its own: the threads that read the ranks for the output only
    // copy their rows.
    summary.watch_on_threads(watch_threads(cpus));
    if (want_summary)
      for (const AlignedRank* rank : job.block()) summary.watch(*rank);

    // match
    const std::optional<MatchedJob> matched =
        match_messages(job, checked.checked_here,
                       {group, early_, sink, report, *staged, options_.correct_causality, cpus});
    if (!matched) return 1;

    // correct
    const Corrected corrected = correct_times(job, *matched);
    if (corrected.rebased && !quiet)
      fmt::print(stderr,
                 "rocprof-merge: some records fall {:.3f} s before the reference clock's zero "
                 "even after correction (a wrong clock sample?): every time is moved that much "
                 "later\n",
                 static_cast<double>(corrected.moved_ns) / 1e9);
    // Early work on ranks the matching changed is done again in its turn, and summed up again.
    const std::vector<const AlignedRank*> block = job.block();
    const std::vector<std::size_t> read_again = sink.drop_early([&](std::size_t i) {
      return corrected.rebased || matched->report.changes(block[i]->rank());
    });
    if (want_summary)
      for (const std::size_t i : read_again) summary.watch_again(*block[i]);
    report.clear();
    if (!quiet) print_matching(*matched, checked, options_.correct_causality);
    early_.drop_spill();  // matched (the first process read every spill before the broadcast)

    // emit
    report.phase(fmt::format("writing {}", options_.output));
    partial.arm();
    SinkJob to_write{
        .ranks = &job.all,
        .first_rank = job.first_rank,
        .last_rank = job.last_rank,
        .job_id = &checked.set.job_id(),
        .path = staged->path(),
        .progress = [&report](std::size_t done, std::size_t total) { report.update(done, total); },
        .helpers =
            settings_.encode_helpers ? *settings_.encode_helpers : EncodeAhead::helpers_for(cpus),
        .direct_io = settings_.direct_io,
        .linked_parts = linked_parts,
        .output_name = std::filesystem::path(options_.output).filename().string()};
    const std::optional<std::uint64_t> events = strategy->emit(
        sink, std::move(to_write), checked.weights, {*staged, partial, report, cpus});
    if (!events) return 1;
    partial.keep();  // written whole: what follows (the summary) cannot spoil it
    report.clear();
    if (!quiet)
      if (const std::string advice = sink.advice(options_.output, *events); !advice.empty())
        fmt::print(stderr, "rocprof-merge: {}\n", advice);

    // summarise
    if (want_summary) {
      report.phase("summarising");
      add_up(summary, block, group, report, cpus, window_);
      report.clear();
    }
    std::vector<std::string> timing_report;
    if (options_.timings) timing_report = timing_lines(group, report.timings());
    if (!group.leader()) return 0;
    // What follows is the first process's alone; --timings lists its phases after the
    // shared ones.
    const std::size_t shared_phases = report.timings().size();
    report.phase("printing the summary and its files");
    if (!quiet && options_.print_summary) {
      print_to_terminal(stdout, [&](std::FILE* memory) {
        summary.print(memory);
        checked.health.print(memory);
      });
    }
    if (!options_.csv_prefix.empty()) {
      std::string error;
      if (!summary.write_csv(options_.csv_prefix, error)) {
        fmt::print(stderr, "rocprof-merge: {}\n", error);
        return 1;
      }
    }
    report.clear();
    if (!options_.report.empty()) {
      report.phase("writing the HTML report");
      std::string error;
      const ReportJob about{checked.set.job_id(), static_cast<std::size_t>(group.size()),
                            options_.output};
      if (!write_html_report(options_.report, summary, about, error)) {
        fmt::print(stderr, "rocprof-merge: {}\n", error);
        return 1;
      }
      if (!quiet) fmt::print("rocprof-merge: report -> {}\n", options_.report);
      report.clear();
    }
    // The summary and CSV files stand on their own; a timeline written to a file that is
    // gone is not a success (nor one to add the analysis to).
    const auto output_gone = [&] {
      const std::string missing = partial.missing();
      if (!missing.empty()) fmt::print(stderr, "rocprof-merge: {}\n", staged->tell(missing));
      return !missing.empty();
    };
    if (output_gone()) return 1;
    // The analysis in the timeline, for a format that stores it.
    if (want_summary) {
      report.phase("adding the analysis to the timeline");
      const std::vector<RegionImbalance> imbalance = summary.region_imbalance();
      JobAnalysis analysis{.imbalance = &imbalance};
      if (summary.gathers_wait_states()) {
        analysis.waits = &summary.wait_states();
        analysis.critical_path = &summary.critical_path();
      }
      std::string error;
      if (!sink.add_analysis(staged->path(), analysis, error)) {
        fmt::print(stderr, "rocprof-merge: {}\n", staged->tell(error));
        return 1;
      }
      report.clear();
    }
    if (output_gone()) return 1;
    report.phase("moving the output into place");
    if (const std::string problem = staged->commit(); !problem.empty()) {
      fmt::print(stderr, "rocprof-merge: {}\n", problem);
      return 1;
    }
    report.clear();
    if (options_.timings) {
      const PhaseTimes& all = report.timings();
      for (std::size_t i = shared_phases; i < all.size(); ++i)
        timing_report.push_back(fmt::format("{:.3f} s {}{}", all[i].second, all[i].first,
                                            group.size() > 1 ? " (first process only)" : ""));
    }
    if (!quiet)
      fmt::print("rocprof-merge: {} ranks, {} events -> {}{}\n", job.ranks.size(), *events,
                 options_.output,
                 group.size() > 1 ? fmt::format(" ({} merge processes)", group.size()) : "");
    for (const std::string& line : timing_report) fmt::print(stderr, "rocprof-merge: {}\n", line);
  } catch (const InputError& error) {
    // Every process of a parallel merge finds the same problem: the first says it.
    if (group.leader()) fmt::print(stderr, "rocprof-merge: {}\n", staged->tell(error.what()));
    return 1;
  } catch (const std::exception& error) {
    fmt::print(stderr, "rocprof-merge: {}\n", staged->tell(failure_text(error)));
    return 1;
  }
  return 0;
}

}  // namespace rocprof::merge
