// The host's counters, from /proc: CPU utilisation of one CPU or of every CPU the process may
// use, the node's memory in use, and the process's resident memory. Real everywhere.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lib/device/counter_source.hpp"

namespace rocprof::device {

// `cpu` -1: every CPU of the process's affinity mask. nullptr when `cpu` is not a CPU of
// this machine.
std::unique_ptr<CounterSource> host_counters(int cpu);

// The host's counters.
const std::vector<CounterInfo>& host_counter_list();

// Whether `name` is one of the host's counters.
bool is_host_counter(const std::string& name);

}  // namespace rocprof::device
