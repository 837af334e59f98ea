// NVIDIA GPUs' counters through NVML (nvml_counters.cpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lib/device/counter_source.hpp"

namespace rocprof::device {

// Every counter NVML may offer.
const std::vector<CounterInfo>& nvml_counter_list();
// The GPUs NVML sees (0 with `why` set where it cannot be used).
int nvml_gpu_count(std::string& why);
// GPU `gpu`'s counters by NVML's numbering, or nullptr where there is no such GPU.
std::unique_ptr<CounterSource> nvml_counters(int gpu);

}  // namespace rocprof::device
