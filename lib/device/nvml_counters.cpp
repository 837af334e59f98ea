// NVIDIA GPUs through NVML, loaded at run time (no link-time dependency: machines without
// an NVIDIA driver have no libnvidia-ml). Only the few NVML functions read here are declared.
#include <dlfcn.h>

#include <cstdint>
#include <ctime>
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
// nvmlFieldValue_t, and the NVLink data counters (KiB sent/received since the driver loaded;
// the scope UINT_MAX sums every link).
struct NvmlFieldValue {
  unsigned int field;
  unsigned int scope;
  long long timestamp_us;  // NOLINT(google-runtime-int): NVML's own type
  long long latency_us;    // NOLINT(google-runtime-int)
  int value_type;
  NvmlReturn status;
  union {
    double as_double;
    unsigned long long as_unsigned;  // NOLINT(google-runtime-int)
  } value;
};
static_assert(sizeof(NvmlFieldValue) == 40);
constexpr unsigned int kNvlinkDataTx = 138;  // NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX
constexpr unsigned int kNvlinkDataRx = 139;  // NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX
constexpr unsigned int kEveryLink = 0xFFFFFFFFU;
constexpr int kValueUnsignedLongLong = 3;  // NVML_VALUE_TYPE_UNSIGNED_LONG_LONG

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
  NvmlReturn (*field_values)(NvmlDevice, int, NvmlFieldValue*) = nullptr;  // may be absent
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
    // Drivers older than NVML's field values lack it: the NVLink counters then read nothing.
    if (!bind_symbol(library, "nvmlDeviceGetFieldValues", api.field_values))
      api.field_values = nullptr;
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

  void start() override { nvlink_ = nvlink_kib(); }

  void read(std::span<const std::size_t> which, std::span<double> values) override {
    bool nvlink_asked = false;
    for (const std::size_t counter : which) nvlink_asked = nvlink_asked || counter >= kNvlinkTx;
    NvlinkReading rates{};
    if (nvlink_asked) {
      const NvlinkReading now = nvlink_kib();
      rates = rates_since(nvlink_, now);
      nvlink_ = now;
    }
    for (std::size_t i = 0; i < which.size(); ++i)
      values[i] = which[i] == kNvlinkTx   ? rates.tx
                  : which[i] == kNvlinkRx ? rates.rx
                                          : value(which[i]);
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
        {"GPU_NVLINK_TX", "bytes/s", "NVLink data sent, every link, since the previous read"},
        {"GPU_NVLINK_RX", "bytes/s", "NVLink data received, every link, since the previous read"},
    };
    return kCounters;
  }

 private:
  static constexpr std::size_t kNvlinkTx = 9;
  static constexpr std::size_t kNvlinkRx = 10;

  // The NVLink data counters (KiB) and when they were read; NaN where the device has none.
  struct NvlinkReading {
    double tx = kMissingReading;
    double rx = kMissingReading;
    double seconds = 0;
  };
  NvlinkReading nvlink_kib() const {
    NvlinkReading reading;
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    reading.seconds = static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
    if (api_.field_values == nullptr) return reading;
    NvmlFieldValue fields[2] = {};
    fields[0].field = kNvlinkDataTx;
    fields[1].field = kNvlinkDataRx;
    fields[0].scope = fields[1].scope = kEveryLink;
    if (api_.field_values(device_, 2, fields) != kNvmlSuccess) return reading;
    auto kib = [](const NvmlFieldValue& field) {
      return field.status == kNvmlSuccess && field.value_type == kValueUnsignedLongLong
                 ? static_cast<double>(field.value.as_unsigned)
                 : kMissingReading;
    };
    reading.tx = kib(fields[0]);
    reading.rx = kib(fields[1]);
    return reading;
  }
  // Bytes per second between two readings (NaN where either lacks the counter).
  static NvlinkReading rates_since(const NvlinkReading& before, const NvlinkReading& after) {
    const double seconds = after.seconds - before.seconds;
    auto rate = [seconds](double from, double to) {
      return seconds > 0 && to >= from ? (to - from) * 1024.0 / seconds : kMissingReading;
    };
    return {rate(before.tx, after.tx), rate(before.rx, after.rx), seconds};
  }

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
  NvlinkReading nvlink_;
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
