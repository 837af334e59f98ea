// What each device of this machine offers to device profiling sessions, as text for
// `rocprof-mpi --list-counters`.
#pragma once

#include <string>
#include <vector>

#include "lib/device/counter_source.hpp"

namespace rocprof::device {

// A section per device (the host, then each GPU): its counters with unit and meaning; a line
// saying why when no GPU can be sampled.
std::string describe_counters();

// What a counter of that name is (unit, meaning), whichever device offers it; nullptr for a
// name no backend offers.
const CounterInfo* find_counter(const std::string& name);

// The first of `names` that no device offers (neither a host nor a GPU counter), or nullptr:
// what the launcher's --device-counters and the recorder's ROCPROF_MPI_DEVICE_COUNTERS refuse.
const std::string* unknown_counter(const std::vector<std::string>& names);

}  // namespace rocprof::device
