// AMD GPUs through ROCm SMI (librocm_smi64.so.1, Debian's librocm-smi64-1), loaded at run
// time; only the few functions read here are declared. Its GPU numbering is ROCm SMI's.
#include <dlfcn.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "lib/device/bind_symbol.hpp"
#include "lib/device/rocm_smi_counters.hpp"

namespace rocprof::device {
namespace {

// ROCm SMI's types and values (rocm_smi/rocm_smi.h of ROCm 5.2).
using RsmiStatus = int;  // rsmi_status_t; RSMI_STATUS_SUCCESS is 0
constexpr RsmiStatus kRsmiSuccess = 0;
constexpr int kClockSystem = 0;         // RSMI_CLK_TYPE_SYS
constexpr int kClockMemory = 4;         // RSMI_CLK_TYPE_MEM
constexpr int kTemperatureEdge = 0;     // RSMI_TEMP_TYPE_EDGE
constexpr int kTemperatureCurrent = 0;  // RSMI_TEMP_CURRENT
constexpr int kMemoryVram = 0;          // RSMI_MEM_TYPE_VRAM
struct RsmiFrequencies {                // rsmi_frequencies_t
  std::uint32_t num_supported;
  std::uint32_t current;
  std::uint64_t frequency[32];  // Hz; RSMI_MAX_NUM_FREQUENCIES
};

struct RocmSmi {
  RsmiStatus (*init)(std::uint64_t) = nullptr;
  RsmiStatus (*count)(std::uint32_t*) = nullptr;
  RsmiStatus (*name)(std::uint32_t, char*, std::size_t) = nullptr;
  RsmiStatus (*busy)(std::uint32_t, std::uint32_t*) = nullptr;
  RsmiStatus (*memory_busy)(std::uint32_t, std::uint32_t*) = nullptr;
  RsmiStatus (*clock)(std::uint32_t, int, RsmiFrequencies*) = nullptr;
  RsmiStatus (*power)(std::uint32_t, std::uint32_t, std::uint64_t*) = nullptr;
  RsmiStatus (*temperature)(std::uint32_t, std::uint32_t, int, std::int64_t*) = nullptr;
  RsmiStatus (*memory_used)(std::uint32_t, int, std::uint64_t*) = nullptr;
  std::string problem;  // why ROCm SMI cannot be used, or ""
};

const RocmSmi& rocm_smi() {
  static const RocmSmi loaded = [] {
    RocmSmi api;
    // ROCM SMI prints to stdout and stderr when it starts on a machine without the AMD GPU
    // driver: it is not asked there. A library named by the setting is asked whatever the
    // machine (another ROCm installation, or a simulated one).
    const char* named =
        std::getenv("ROCPROF_MPI_ROCM_SMI_LIBRARY");  // NOLINT(concurrency-mt-unsafe)
    const bool explicit_library = named != nullptr && *named != '\0';
    if (!explicit_library && ::access("/dev/kfd", F_OK) != 0) {
      api.problem = "no AMD GPU driver here (no /dev/kfd)";
      return api;
    }
    const char* path = explicit_library ? named : "librocm_smi64.so.1";
    void* library = ::dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      api.problem = fmt::format("no ROCm SMI here ({} cannot be loaded)", path);
      return api;
    }
    const bool bound = bind_symbol(library, "rsmi_init", api.init) &&
                       bind_symbol(library, "rsmi_num_monitor_devices", api.count) &&
                       bind_symbol(library, "rsmi_dev_name_get", api.name) &&
                       bind_symbol(library, "rsmi_dev_busy_percent_get", api.busy) &&
                       bind_symbol(library, "rsmi_dev_memory_busy_percent_get", api.memory_busy) &&
                       bind_symbol(library, "rsmi_dev_gpu_clk_freq_get", api.clock) &&
                       bind_symbol(library, "rsmi_dev_power_ave_get", api.power) &&
                       bind_symbol(library, "rsmi_dev_temp_metric_get", api.temperature) &&
                       bind_symbol(library, "rsmi_dev_memory_usage_get", api.memory_used);
    if (!bound)
      api.problem = fmt::format("{} lacks a ROCm SMI function this library reads", path);
    else if (const RsmiStatus status = api.init(0); status != kRsmiSuccess)
      api.problem = fmt::format("ROCm SMI did not start (rsmi_init returned {})", status);
    return api;
  }();
  return loaded;
}

class RocmSmiCounters final : public CounterSource {
 public:
  RocmSmiCounters(const RocmSmi& api, std::uint32_t index) : api_(api), index_(index) {
    char name[128] = {};
    if (api_.name(index_, name, sizeof name) != kRsmiSuccess) name[0] = '\0';
    device_name_ = fmt::format("GPU {} ({})", index, name[0] != '\0' ? name : "AMD");
  }

  std::string device() const override { return device_name_; }
  std::string backend() const override { return "rocm_smi"; }

  const std::vector<CounterInfo>& counters() const override {
    static const std::vector<CounterInfo> kCounters = {
        {"GPU_UTIL", "%", "GPU busy share (ROCm SMI's busy percent)"},
        {"GPU_MEM_UTIL", "%", "memory controller busy share"},
        {"GPU_SM_CLOCK", "MHz", "system (shader) clock"},
        {"GPU_MEM_CLOCK", "MHz", "memory clock"},
        {"GPU_POWER", "W", "average socket power"},
        {"GPU_TEMPERATURE", "C", "edge temperature"},
        {"GPU_MEM_USED", "bytes", "VRAM in use"},
    };
    return kCounters;
  }

  void start() override {}

  void read(std::span<const std::size_t> which, std::span<double> values) override {
    for (std::size_t i = 0; i < which.size(); ++i) values[i] = value(which[i]);
  }

 private:
  double value(std::size_t counter) const {
    switch (counter) {
      case 0:
      case 1: {
        std::uint32_t percent = 0;
        const auto read = counter == 0 ? api_.busy : api_.memory_busy;
        return read(index_, &percent) == kRsmiSuccess ? percent : kMissingReading;
      }
      case 2:
      case 3: {
        RsmiFrequencies clocks{};
        if (api_.clock(index_, counter == 2 ? kClockSystem : kClockMemory, &clocks) !=
                kRsmiSuccess ||
            clocks.current >= clocks.num_supported || clocks.current >= 32)
          return kMissingReading;
        return static_cast<double>(clocks.frequency[clocks.current]) / 1e6;
      }
      case 4: {
        std::uint64_t microwatts = 0;
        return api_.power(index_, 0, &microwatts) == kRsmiSuccess
                   ? static_cast<double>(microwatts) / 1e6
                   : kMissingReading;
      }
      case 5: {
        std::int64_t millidegrees = 0;
        return api_.temperature(index_, kTemperatureEdge, kTemperatureCurrent, &millidegrees) ==
                       kRsmiSuccess
                   ? static_cast<double>(millidegrees) / 1000.0
                   : kMissingReading;
      }
      default: {
        std::uint64_t bytes = 0;
        return api_.memory_used(index_, kMemoryVram, &bytes) == kRsmiSuccess
                   ? static_cast<double>(bytes)
                   : kMissingReading;
      }
    }
  }

  const RocmSmi& api_;
  std::uint32_t index_;
  std::string device_name_;
};

}  // namespace

int rocm_smi_gpu_count(std::string& why) {
  const RocmSmi& api = rocm_smi();
  if (!api.problem.empty()) {
    why = api.problem;
    return 0;
  }
  std::uint32_t count = 0;
  if (api.count(&count) != kRsmiSuccess) why = "ROCm SMI did not say how many GPUs there are";
  return static_cast<int>(count);
}

std::unique_ptr<CounterSource> rocm_smi_counters(int gpu) {
  std::string why;
  if (gpu < 0 || gpu >= rocm_smi_gpu_count(why)) return nullptr;
  return std::make_unique<RocmSmiCounters>(rocm_smi(), static_cast<std::uint32_t>(gpu));
}

}  // namespace rocprof::device
