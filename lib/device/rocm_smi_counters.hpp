// AMD GPUs' counters through ROCm SMI (rocm_smi_counters.cpp); gpu_counters() asks here when
// NVML sees no GPU.
#pragma once

#include <memory>
#include <string>

#include "lib/device/counter_source.hpp"

namespace rocprof::device {

// The GPUs ROCm SMI sees (0 with `why` set where it cannot be used).
int rocm_smi_gpu_count(std::string& why);
// GPU `gpu`'s counters by ROCm SMI's numbering, or nullptr where there is no such GPU.
std::unique_ptr<CounterSource> rocm_smi_counters(int gpu);

}  // namespace rocprof::device
