// A GPU's counters, through the vendor's management library found at run time: NVML
// (libnvidia-ml.so.1) for NVIDIA GPUs, ROCm SMI (librocm_smi64.so.1) for AMD ones. The
// counter names are the same whichever backend offers them, so a program asks for GPU_UTIL on
// any GPU.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lib/device/counter_source.hpp"

namespace rocprof::device {

// Whether `name` is a GPU counter some backend offers (on some machine).
bool is_gpu_counter(const std::string& name);

// The GPUs the management library sees (0 with `why` set where it cannot be used).
int gpu_count(std::string& why);

// The GPUs this process may use, by the management library's numbering: those its runtime's
// visible-devices variable names (CUDA_VISIBLE_DEVICES on NVIDIA GPUs, ROCR_VISIBLE_DEVICES
// then HIP_VISIBLE_DEVICES on AMD ones), else every GPU of the node. Entries that are not
// indices (UUIDs, MIG instances) cannot be mapped: then every GPU.
std::vector<int> visible_gpus();

// GPU `gpu`'s counters (by the management library's numbering), or nullptr with `why` set:
// no management library, or no such GPU.
std::unique_ptr<CounterSource> gpu_counters(int gpu, std::string& why);

}  // namespace rocprof::device
