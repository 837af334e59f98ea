// What the merge checks of its outputs before any work: a long merge must not fail at the end
// because its output cannot be written.
#pragma once

#include <string>

#include "merge/export/sink.hpp"
#include "merge/pipeline/merge_options.hpp"

namespace rocprof::merge {

// Why the output (written by `sink`), the summary's CSV files or the HTML report cannot be
// written, or "": a
// missing or read-only directory, a directory of that name, a read-only file, one of the
// rank files named as an output, what the sink itself refuses, or a --scratch directory that
// is missing or read-only.
std::string output_problem(const MergeOptions& options, const Sink& sink);

}  // namespace rocprof::merge
