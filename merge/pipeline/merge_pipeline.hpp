// The merge as one pipeline: check -> align -> match -> correct -> emit -> summarise ->
// analyse -> the first process's outputs. Each step takes what the one before produced
// (merge_steps.hpp); a strategy (merge_strategy.hpp) spreads the steps over one process or a
// parallel merge's processes, and a sink (merge/export/sink.hpp), chosen by the output's extension,
// writes the output. The front end (cli/rocprof_merge_main.cpp) only reads the command line and
// runs this.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "merge/analysis/analysis_window.hpp"
#include "merge/analysis/end_spill.hpp"
#include "merge/export/sink_registry.hpp"
#include "merge/parallel/merge_group.hpp"
#include "merge/pipeline/early_start.hpp"
#include "merge/pipeline/merge_options.hpp"
#include "merge/pipeline/phase_report.hpp"

namespace rocprof::merge {

class MergePipeline {
 public:
  // Before MPI starts (and before any thread): reads the settings, and starts what may start
  // early when `command_line_read` and nothing will refuse the merge.
  MergePipeline(MergeOptions options, bool command_line_read);

  // Once MPI has started (a group of one outside an MPI launch). Every process runs it; only
  // the first one prints, but errors. Returns the exit status: 0 merged, 1 bad input or a
  // failed write, 2 an output or setting refused before any work.
  int run(MergeGroup& group, PhaseReport& report);

  const MergeOptions& options() const noexcept { return options_; }

 private:
  // What a run carries from one step to the next (merge_pipeline.cpp).
  struct Run;
  // The steps of run(), in order. The first returns an exit status (0: go on); the others
  // throw on bad input, and return false after telling a failure.
  int prepare(Run& run);
  void check(Run& run);
  bool stage(Run& run);
  void align(Run& run);
  bool match_and_correct(Run& run);
  bool emit(Run& run);
  static void summarise(Run& run);
  void analyse(Run& run);
  bool write_first_process_outputs(Run& run);
  std::shared_ptr<EndSpill> analysis_spill(const Run& run) const;

  MergeOptions options_;
  MergeSettings settings_;
  const SinkEntry* format_;           // nullptr: no sink writes the output's extension
  std::unique_ptr<Sink> sink_;        // the format's sink, made once
  std::optional<WindowSpec> window_;  // --window, read once
  std::string window_problem_;        // why --window is refused, "" if it is not
  EarlyStart early_;
};

}  // namespace rocprof::merge
