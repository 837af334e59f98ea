// Device counters under the launcher (ROCPROF_MPI_DEVICE_COUNTERS): which devices this process
// would sample, and the sampling thread that writes their readings into the rank file. One
// process per device samples it; the MPI layer picks which (rocprof_mpi_counter_devices).
#pragma once

#include <cstdint>
#include <string>

#include "lib/settings/config.hpp"

namespace rocprof::recorder {

// A set of devices: bit 0 the host, bit 1 + g GPU g (GPUs past 62 are not sampled).
using DeviceSet = std::uint64_t;
inline constexpr DeviceSet kHostDevice = 1;
inline constexpr int kMaxSampledGpu = 62;

// The devices this process uses that offer a counter of `config`: the host for a host
// counter, its visible GPUs (gpu_counters.hpp) for a GPU counter. 0 when none are asked.
DeviceSet counter_devices_wanted(const settings::Config& config);

// What is wrong with the counters `config` names, or "": a name no device offers.
std::string device_counters_problem(const settings::Config& config);

// Why the GPU counters `config` names cannot be sampled on this node (no management library,
// no GPU this process may use) when it names no host counter (no sampler would start to say
// so), or "" when they can, none are named, or the sampler will say it.
std::string gpu_counters_unavailable(const settings::Config& config);

// Starts the sampling thread for `devices` (the first call with a non-empty set; later calls
// do nothing). Readings go into the recorder's pool; problems are reported once each.
void start_counter_sampling(const settings::Config& config, DeviceSet devices) noexcept;

// Stops the sampling thread after one last reading (before the file is closed).
void stop_counter_sampling() noexcept;

}  // namespace rocprof::recorder
