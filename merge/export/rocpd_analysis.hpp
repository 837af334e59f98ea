// The analysis in a rocpd database (docs/ROCPD.md): tables of our own, which rocpd's tools do
// not read: the wait states by pattern and cause, each wait, and the critical path.
#pragma once

#include <string>

#include "merge/analysis/job_analysis.hpp"

namespace rocprof::merge {

// Adds the tables to the finished database at `path`; false with `error`.
bool add_analysis_to_rocpd(const std::string& path, const JobAnalysis& analysis,
                           std::string& error);

}  // namespace rocprof::merge
