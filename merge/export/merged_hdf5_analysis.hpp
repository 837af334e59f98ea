// The analysis in a merged HDF5 file: an `analysis` group added to the written file, with a
// table per result (docs/ROCPROF_MERGE.md lists them): the wait states per pattern, rank,
// call path and cause, each wait on its own, the critical path's stretches and activities,
// and each region's imbalance across ranks, in total and over the run. Each table is a group
// of column datasets, as the merged file's other tables, compressed with deflate (which any
// HDF5 reader has) rather than zstd; strings are stored as text, not ids.
#pragma once

#include <string>

#include "merge/analysis/job_analysis.hpp"

namespace rocprof::merge {

// Adds the group to the merged .h5 at `path`; false with `error`.
bool add_analysis_to_merged_hdf5(const std::string& path, const JobAnalysis& analysis,
                                 std::string& error);

}  // namespace rocprof::merge
