// The analysis on the Perfetto timeline: appended to a written .pftrace as a packet sequence
// of its own (a trace is a series of packets, so more may follow). Per rank, a "wait states"
// track with a slice per wait (pattern and the rank waited for) and a flow to an instant on
// the awaited rank's "waited for" track, named by what that rank was doing; and a "critical
// path" track with the rank's stretches of the path, linked by flows in time order.
#pragma once

#include <string>

#include "merge/analysis/critical_path.hpp"
#include "merge/analysis/wait_states.hpp"

namespace rocprof::merge {

// Appends to the .pftrace at `path`; false with `error` (the trace before it is untouched
// but for the bytes appended).
bool append_analysis_to_perfetto(const std::string& path, const WaitStateReport& waits,
                                 const CriticalPath& path_of_job, std::string& error);

}  // namespace rocprof::merge
