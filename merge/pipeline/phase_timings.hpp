#pragma once
// --timings: how long each phase of the merge took. In a parallel merge every process times
// its own phases and the first prints them all, so a process that holds the others up shows.

#include <string>
#include <utility>
#include <vector>

#include "merge/parallel/merge_group.hpp"
#include "merge/pipeline/phase_report.hpp"

namespace rocprof::merge {

// Collective in a parallel merge. The lines to print, on the first process (empty on the
// others): one a phase, "0.364 s checking rank files", with every process's seconds after
// it in process order when there are several. Starting MPI counts as a phase.
std::vector<std::string> timing_lines(const MergeGroup& group, PhaseTimes phases);

}  // namespace rocprof::merge
