// What each device of this machine offers to device profiling sessions, as text for
// `rocprof-mpi --list-counters`.
#pragma once

#include <string>

namespace rocprof::device {

// A section per device (the host, then each GPU): its counters with unit and meaning; a line
// saying why when no GPU can be sampled.
std::string describe_counters();

}  // namespace rocprof::device
