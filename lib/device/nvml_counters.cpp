// NVIDIA GPUs through NVML, loaded at run time (no link-time dependency: machines without
// an NVIDIA driver have no libnvidia-ml). Only the few NVML functions read here are declared.
#include <dlfcn.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "lib/device/bind_symbol.hpp"
#include "lib/device/nvml_counters.hpp"

namespace rocprof::device {
namespace {

// NVML's types and values (nvml.h) that the calls below use.
using NvmlReturn = int;  // nvmlReturn_t; NVML_SUCCESS is 0
constexpr NvmlReturn kNvmlSuccess = 0;
struct NvmlDeviceOpaque;
using NvmlDevice = NvmlDeviceOpaque*;
struct NvmlUtilization {
  unsigned int gpu;     // % of the past sample period a kernel ran
  unsigned int memory;  // % of it device memory was read or written
};
struct NvmlMemory {
  unsigned long long total;  // NOLINT(google-runtime-int): NVML's own type
  unsigned long long free;   // NOLINT(google-runtime-int)
  unsigned long long used;   // NOLINT(google-runtime-int)
};
constexpr int kClockSm = 1;         // NVML_CLOCK_SM
constexpr int kClockMemory = 2;     // NVML_CLOCK_MEM
constexpr int kTemperatureGpu = 0;  // NVML_TEMPERATURE_GPU
constexpr int kPcieTxBytes = 0;     // NVML_PCIE_UTIL_TX_BYTES
constexpr int kPcieRxBytes = 1;     // NVML_PCIE_UTIL_RX_BYTES

struct Nvml {
  NvmlReturn (*init)() = nullptr;
  NvmlReturn (*count)(unsigned int*) = nullptr;
  NvmlReturn (*handle)(unsigned int, NvmlDevice*) = nullptr;
  NvmlReturn (*name)(NvmlDevice, char*, unsigned int) = nullptr;
  NvmlReturn (*utilization)(NvmlDevice, NvmlUtilization*) = nullptr;
  NvmlReturn (*clock)(NvmlDevice, int, unsigned int*) = nullptr;
  NvmlReturn (*power)(NvmlDevice, unsigned int*) = nullptr;
  NvmlReturn (*temperature)(NvmlDevice, int, unsigned int*) = nullptr;
  NvmlReturn (*memory)(NvmlDevice, NvmlMemory*) = nullptr;
  NvmlReturn (*pcie)(NvmlDevice, int, unsigned int*) = nullptr;
  std::string problem;  // why NVML cannot be used, or ""
};

// Loaded and initialised once per process; never unloaded (sessions may outlive each other).
const Nvml& nvml() {
  static const Nvml loaded = [] {
    Nvml api;
    void* library = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      api.problem = "no NVIDIA driver here (libnvidia-ml.so.1 cannot be loaded)";
      return api;
    }
    const bool bound = bind_symbol(library, "nvmlInit_v2", api.init) &&
                       bind_symbol(library, "nvmlDeviceGetCount_v2", api.count) &&
                       bind_symbol(library, "nvmlDeviceGetHandleByIndex_v2", api.handle) &&
                       bind_symbol(library, "nvmlDeviceGetName", api.name) &&
                       bind_symbol(library, "nvmlDeviceGetUtilizationRates", api.utilization) &&
                       bind_symbol(library, "nvmlDeviceGetClockInfo", api.clock) &&
                       bind_symbol(library, "nvmlDeviceGetPowerUsage", api.power) &&
                       bind_symbol(library, "nvmlDeviceGetTemperature", api.temperature) &&
                       bind_symbol(library, "nvmlDeviceGetMemoryInfo", api.memory) &&
                       bind_symbol(library, "nvmlDeviceGetPcieThroughput", api.pcie);
    if (!bound)
      api.problem = "libnvidia-ml.so.1 lacks an NVML function this library reads";
    else if (const NvmlReturn status = api.init(); status != kNvmlSuccess)
      api.problem = fmt::format("NVML did not start (nvmlInit_v2 returned {})", status);
    return api;
  }();
  return loaded;
}

class NvmlCounters final : public CounterSource {
 public:
  NvmlCounters(const Nvml& api, NvmlDevice device, int index) : api_(api), device_(device) {
    char name[96] = {};
    if (api_.name(device_, name, sizeof name) != kNvmlSuccess) name[0] = '\0';
    device_name_ = fmt::format("GPU {} ({})", index, name[0] != '\0' ? name : "NVIDIA");
  }

  std::string device() const override { return device_name_; }
  std::string backend() const override { return "nvml"; }

  const std::vector<CounterInfo>& counters() const override { return gpu_counter_list(); }

  void start() override {}

  void read(std::span<const std::size_t> which, std::span<double> values) override {
    for (std::size_t i = 0; i < which.size(); ++i) values[i] = value(which[i]);
  }

  static const std::vector<CounterInfo>& gpu_counter_list() {
    static const std::vector<CounterInfo> kCounters = {
        {"GPU_UTIL", "%", "share of the last sample period (NVML's) a kernel ran"},
        {"GPU_MEM_UTIL", "%", "share of it device memory was read or written"},
        {"GPU_SM_CLOCK", "MHz", "streaming multiprocessor clock"},
        {"GPU_MEM_CLOCK", "MHz", "memory clock"},
        {"GPU_POWER", "W", "board power draw"},
        {"GPU_TEMPERATURE", "C", "GPU die temperature"},
        {"GPU_MEM_USED", "bytes", "device memory in use (every process)"},
        {"GPU_PCIE_TX", "bytes/s", "PCIe transmit throughput (NVML's 20 ms window)"},
        {"GPU_PCIE_RX", "bytes/s", "PCIe receive throughput (NVML's 20 ms window)"},
    };
    return kCounters;
  }

 private:
  // A counter's value now; NaN where the device does not report it.
  double value(std::size_t counter) const {
    unsigned int reading = 0;
    bool ok = false;
    switch (counter) {
      case 0:
      case 1: {
        NvmlUtilization utilization{};
        ok = api_.utilization(device_, &utilization) == kNvmlSuccess;
        reading = counter == 0 ? utilization.gpu : utilization.memory;
        break;
      }
      case 2:
      case 3:
        ok = api_.clock(device_, counter == 2 ? kClockSm : kClockMemory, &reading) == kNvmlSuccess;
        break;
      case 4:
        ok = api_.power(device_, &reading) == kNvmlSuccess;
        return ok ? reading / 1000.0 : kMissingReading;
      case 5:
        ok = api_.temperature(device_, kTemperatureGpu, &reading) == kNvmlSuccess;
        break;
      case 6: {
        NvmlMemory memory{};
        ok = api_.memory(device_, &memory) == kNvmlSuccess;
        return ok ? static_cast<double>(memory.used) : kMissingReading;
      }
      default:
        ok = api_.pcie(device_, counter == 7 ? kPcieTxBytes : kPcieRxBytes, &reading) ==
             kNvmlSuccess;
        return ok ? reading * 1024.0 : kMissingReading;  // NVML gives KB/s
    }
    return ok ? static_cast<double>(reading) : kMissingReading;
  }

  const Nvml& api_;
  NvmlDevice device_;
  std::string device_name_;
};

}  // namespace

const std::vector<CounterInfo>& nvml_counter_list() { return NvmlCounters::gpu_counter_list(); }

int nvml_gpu_count(std::string& why) {
  const Nvml& api = nvml();
  unsigned int count = 0;
  if (!api.problem.empty()) {
    why = api.problem;
    return 0;
  }
  if (api.count(&count) != kNvmlSuccess) why = "NVML did not say how many GPUs there are";
  return static_cast<int>(count);
}

std::unique_ptr<CounterSource> nvml_counters(int gpu) {
  std::string why;
  NvmlDevice device = nullptr;
  if (gpu < 0 || gpu >= nvml_gpu_count(why) ||
      nvml().handle(static_cast<unsigned int>(gpu), &device) != kNvmlSuccess)
    return nullptr;
  return std::make_unique<NvmlCounters>(nvml(), device, gpu);
}

}  // namespace rocprof::device
