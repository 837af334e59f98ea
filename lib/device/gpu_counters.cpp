#include "lib/device/gpu_counters.hpp"

#include "lib/device/nvml_counters.hpp"
#include "lib/device/rocm_smi_counters.hpp"

namespace rocprof::device {

// Every GPU counter has the same name under each backend; NVML's list holds them all.
bool is_gpu_counter(const std::string& name) {
  for (const CounterInfo& counter : nvml_counter_list())
    if (counter.name == name) return true;
  return false;
}

// A node's GPUs are one vendor's: NVIDIA's when NVML sees any, else AMD's through ROCm SMI.
int gpu_count(std::string& why) {
  std::string nvml_why;
  if (const int count = nvml_gpu_count(nvml_why); count > 0) return count;
  std::string smi_why;
  if (const int count = rocm_smi_gpu_count(smi_why); count > 0) return count;
  why = (nvml_why.empty() ? "NVML sees no GPU" : nvml_why) + "; " +
        (smi_why.empty() ? "ROCm SMI sees no GPU" : smi_why);
  return 0;
}

std::unique_ptr<CounterSource> gpu_counters(int gpu, std::string& why) {
  std::string ignored;
  if (nvml_gpu_count(ignored) > 0) {
    if (auto source = nvml_counters(gpu)) return source;
    why = "no NVIDIA GPU of that index";
    return nullptr;
  }
  if (auto source = rocm_smi_counters(gpu)) return source;
  if (gpu_count(why) > 0) why = "no AMD GPU of that index";
  return nullptr;
}

}  // namespace rocprof::device
