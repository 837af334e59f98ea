// What the merge's analysis found, handed to an output that stores it (merge/export/): the
// wait states and the critical path when they were analysed (rocprof-merge --wait-states),
// and each region's imbalance across ranks.
#pragma once

#include <vector>

#include "merge/analysis/critical_path.hpp"
#include "merge/analysis/region_imbalance.hpp"
#include "merge/analysis/wait_states.hpp"

namespace rocprof::merge {

struct JobAnalysis {
  const WaitStateReport* waits = nullptr;  // nullptr: not analysed
  const CriticalPath* critical_path = nullptr;
  const std::vector<RegionImbalance>* imbalance = nullptr;
};

}  // namespace rocprof::merge
