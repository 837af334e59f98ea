#include "lib/device/counter_listing.hpp"

#include <fmt/format.h>

#include "lib/device/counter_source.hpp"
#include "lib/device/gpu_counters.hpp"
#include "lib/device/host_counters.hpp"
#include "lib/device/nvml_counters.hpp"

namespace rocprof::device {
namespace {

std::string section(const CounterSource& source, const std::string& how) {
  std::string text = fmt::format("{} ({}):\n", source.device(), how);
  for (const CounterInfo& counter : source.counters())
    text += fmt::format("  {:<18} {:<8} {}\n", counter.name, counter.unit, counter.description);
  return text;
}

}  // namespace

std::string describe_counters() {
  std::string text;
  if (const auto host = host_counters(-1))
    text += section(*host, "cpu_index -1: every CPU of the process; N: CPU N");
  std::string why;
  const int gpus = gpu_count(why);
  for (int gpu = 0; gpu < gpus; ++gpu)
    if (const auto device = gpu_counters(gpu, why))
      text += section(*device, fmt::format("gpu_index {}", gpu));
  if (gpus == 0) text += fmt::format("GPUs: none to sample: {}\n", why);
  return text;
}

const CounterInfo* find_counter(const std::string& name) {
  for (const auto* list : {&host_counter_list(), &nvml_counter_list()})
    for (const CounterInfo& counter : *list)
      if (counter.name == name) return &counter;
  return nullptr;
}

const std::string* unknown_counter(const std::vector<std::string>& names) {
  for (const std::string& name : names)
    if (!is_host_counter(name) && !is_gpu_counter(name)) return &name;
  return nullptr;
}

}  // namespace rocprof::device
