// The job's earliest record on the reference clock, as every merge process of a sink agrees on
// it: outputs that show small times (JSON) count from it.
#pragma once

#include <cstdint>

#include "merge/export/sink.hpp"

namespace rocprof::merge {

// Collective in a parallel merge (every process takes part even when reading its own ranks'
// first rows failed: then all stop, the one that failed saying why, the others throwing
// OtherProcessFailed).
std::uint64_t job_origin_ns(const SinkJob& job);

}  // namespace rocprof::merge
