// What a merge is asked to do: the command line's choices, and the settings read from the
// environment (read before MPI starts, so that a parallel merge can start early).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "merge/analysis/wait_states.hpp"
#include "merge/files/block_file.hpp"
#include "merge/input/check_helpers.hpp"
#include "merge/parallel/active_processes.hpp"

namespace rocprof::merge {

struct MergeOptions {
  std::vector<std::string> inputs;  // a directory of rank files, or rank files
  std::string output;               // the timeline; its extension names the format
  std::string csv_prefix;           // the summary's CSV files, or none
  std::string report;               // the HTML report, or none
  bool allow_missing = false;
  bool skip_bad = false;
  bool quiet = false;  // nothing but errors
  bool print_summary = true;
  bool correct_causality = true;
  // The wait states and the critical path (docs/ANALYSIS.md), unless --no-analysis: for the
  // summary, its CSV files, the timeline and the report.
  bool analyse = true;
  // The analysis's window of interest (--window; docs/ANALYSIS.md), "" for the whole run.
  std::string window;
  bool timings = false;  // each phase's time, on stderr
  // A parallel merge's parts of a .pftrace/.json go to this directory of each node's own
  // (--scratch) instead of beside the output; "" for beside the output.
  std::string scratch;
  // In parallel, a .h5 written as one file per merge process, linked by the output (HDF5
  // virtual datasets; OUTPUT.parts/ beside it): the default; --no-h5-parts writes one file.
  bool h5_parts = true;
};

struct MergeSettings {
  BlockFile::DirectIo direct_io = BlockFile::DirectIo::kAuto;  // ROCPROF_MERGE_DIRECT_IO
  // ROCPROF_MERGE_CHECK_HELPERS and ROCPROF_MERGE_ENCODE_HELPERS: nullopt for auto.
  std::optional<std::size_t> check_helpers;
  std::optional<std::size_t> encode_helpers;
  // ROCPROF_MERGE_ANALYSIS_MEMORY (MiB): the analysis's message ends and collective calls a
  // merge process holds in memory; the rest wait in a file beside the output.
  std::size_t analysis_memory = kAnalysisMemory;
  // ROCPROF_MERGE_PROCESSES=auto|all|N: what bounds the processes that merge (auto: the
  // job's records and the node's CPUs; all: none; N: at most N).
  MergingLimits merging;
  // The first misspelt setting, or "": the merge then stops before any work.
  std::string problem;
};

MergeSettings merge_settings_from_environment();

// Check helpers for a process sharing its node with `processes_on_node` merge processes:
// as asked, or one per CPU it may count on, at most eight (the merge's thread only waits for
// their findings).
CheckHelperSetting check_helper_setting(std::optional<std::size_t> asked,
                                        std::size_t processes_on_node);

// Ranks whose message endpoints are spilled at once beside the check of the files: one per
// CPU the process may count on, up to eight.
std::size_t spill_helpers(std::size_t processes_on_node);

}  // namespace rocprof::merge
