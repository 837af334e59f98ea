#include "lib/device/gpu_counters.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <numeric>
#include <string_view>

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

namespace {

// The GPUs named by `list` ("0,2"), out of `count`; false where an entry is not an index.
// An index past the last GPU ends the list, as it does for the runtimes.
bool parse_visible(std::string_view list, int count, std::vector<int>& gpus) {
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view entry = list.substr(0, comma);
    int gpu = -1;
    const auto [end, code] = std::from_chars(entry.data(), entry.data() + entry.size(), gpu);
    if (code != std::errc{} || end != entry.data() + entry.size()) return false;
    if (gpu < 0 || gpu >= count) break;
    if (std::find(gpus.begin(), gpus.end(), gpu) == gpus.end()) gpus.push_back(gpu);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return true;
}

}  // namespace

std::vector<int> visible_gpus() {
  std::string why;
  const int count = gpu_count(why);
  std::vector<int> all(static_cast<std::size_t>(count));
  std::iota(all.begin(), all.end(), 0);
  std::string ignored;
  const bool nvidia = nvml_gpu_count(ignored) > 0;
  for (const char* variable : {nvidia ? "CUDA_VISIBLE_DEVICES" : "ROCR_VISIBLE_DEVICES",
                               nvidia ? "" : "HIP_VISIBLE_DEVICES"}) {
    const char* value = *variable != '\0' ? std::getenv(variable) : nullptr;  // NOLINT
    if (value == nullptr) continue;
    std::vector<int> named;
    return parse_visible(value, count, named) ? named : all;
  }
  return all;
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
