#include "lib/recorder/counter_sampling.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "lib/device/counter_listing.hpp"
#include "lib/device/gpu_counters.hpp"
#include "lib/device/host_counters.hpp"
#include "lib/device/periodic_sampler.hpp"
#include "lib/recorder/helper_threads.hpp"
#include "lib/recorder/private_write.hpp"

namespace rocprof::recorder {
namespace {

using device::SampledDevice;

// Readings into the recorder's pool, as private records of the sampling thread.
class PoolSampleSink final : public device::SampleSink {
 public:
  void problem(const std::string& text) override {
    const std::string line = fmt::format("rocprof-mpi: device counters: {}\n", text);
    [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, line.data(), line.size());
  }

  void session(const SampledDevice& device, std::uint64_t start_ns,
               std::uint64_t interval_ns) override {
    std::string counters;
    for (const std::string& name : device.counters)
      counters += (counters.empty() ? "" : ",") + name;
    // The sink splits the text into the three strings of the row.
    const std::string text = fmt::format("{}{}{}{}{}", device.name, kAnnotationSeparator,
                                         device.backend, kAnnotationSeparator, counters);
    write_private<format::CounterSessionRow>(kCounterSessionDomain, text.c_str(),
                                             [&](format::CounterSessionRow& row) {
                                               row.start_ns = start_ns;
                                               row.interval_ns = interval_ns;
                                               row.session = device.session;
                                               row.device_id = device.device_id;
                                             });
  }

  void sample(const SampledDevice& device, std::size_t counter, std::uint64_t timestamp_ns,
              double value) override {
    write_private<format::CounterSampleRow>(kCounterSampleDomain, device.counters[counter].c_str(),
                                            [&](format::CounterSampleRow& row) {
                                              row.session = device.session;
                                              row.timestamp_ns = timestamp_ns;
                                              row.value = value;
                                            });
  }
};

struct Sampling {
  std::mutex mutex;
  bool started = false;
  std::unique_ptr<device::PeriodicSampler> sampler;
  PoolSampleSink sink;
  std::thread thread;
  std::atomic<bool> finished{false};
};

// The longest the end of the process waits for a device read in progress.
constexpr std::chrono::milliseconds kStopWait{2000};

Sampling& sampling() {
  static auto* instance = new Sampling;  // never destroyed: stopped at exit, not torn down
  return *instance;
}

bool any_of(const std::vector<std::string>& names, bool (*kind)(const std::string&)) {
  for (const std::string& name : names)
    if (kind(name)) return true;
  return false;
}

}  // namespace

DeviceSet counter_devices_wanted(const settings::Config& config) {
  DeviceSet devices = 0;
  if (any_of(config.device_counters, device::is_host_counter)) devices |= kHostDevice;
  if (any_of(config.device_counters, device::is_gpu_counter))
    for (const int gpu : device::visible_gpus())
      if (gpu <= kMaxSampledGpu) devices |= DeviceSet{2} << gpu;
  return devices;
}

std::string device_counters_problem(const settings::Config& config) {
  if (const std::string* unknown = device::unknown_counter(config.device_counters))
    return fmt::format(
        "ROCPROF_MPI_DEVICE_COUNTERS names {}, which no device offers (rocprof-mpi "
        "--list-counters lists them)",
        *unknown);
  return {};
}

std::string gpu_counters_unavailable(const settings::Config& config) {
  // With a host counter named, the sampler runs and says itself which GPUs it cannot read.
  if (!any_of(config.device_counters, device::is_gpu_counter) ||
      any_of(config.device_counters, device::is_host_counter))
    return {};
  std::string why;
  if (device::gpu_count(why) == 0)
    return fmt::format("GPU counters are not sampled: {}", why.empty() ? "no GPU found" : why);
  if (device::visible_gpus().empty()) return "GPU counters are not sampled: no GPU is visible";
  return {};
}

void start_counter_sampling(const settings::Config& config, DeviceSet devices) noexcept {
  if (devices == 0 || config.device_counters.empty()) return;
  Sampling& state = sampling();
  try {
    const std::lock_guard lock(state.mutex);
    if (state.started) return;
    state.started = true;
    std::vector<int> gpus;
    for (int gpu = 0; gpu <= kMaxSampledGpu; ++gpu)
      if ((devices & (DeviceSet{2} << gpu)) != 0) gpus.push_back(gpu);
    state.sampler = std::make_unique<device::PeriodicSampler>(
        config.device_counters, (devices & kHostDevice) != 0, std::move(gpus),
        std::uint64_t{config.counter_interval_ms} * 1'000'000);
    const bool on_all_cpus = config.helpers_on_all_cpus;
    const int nice = config.helper_nice;
    state.thread = std::thread([&state, on_all_cpus, nice] {
      become_helper_thread(on_all_cpus, nice);
      try {
        state.sampler->run(state.sink);
      } catch (const std::exception& error) {
        state.sink.problem(fmt::format("sampling stopped: {}", error.what()));
      }
      state.finished.store(true, std::memory_order_release);
    });
  } catch (const std::exception& error) {
    state.sink.problem(fmt::format("cannot start sampling: {}", error.what()));
  }
}

void stop_counter_sampling() noexcept {
  Sampling& state = sampling();
  const std::lock_guard lock(state.mutex);
  if (!state.thread.joinable()) return;
  state.sampler->stop();
  // A device that stopped answering must not hold the process at its exit.
  const auto deadline = std::chrono::steady_clock::now() + kStopWait;
  while (!state.finished.load(std::memory_order_acquire) &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (state.finished.load(std::memory_order_acquire)) {
    state.thread.join();
  } else {
    state.sink.problem("a device read did not return; its last samples are not recorded");
    state.thread.detach();
  }
}

}  // namespace rocprof::recorder
