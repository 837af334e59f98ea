#include "lib/device/periodic_sampler.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>

#include <fmt/format.h>

#include "lib/core/clock.hpp"
#include "lib/device/gpu_counters.hpp"
#include "lib/device/host_counters.hpp"

namespace rocprof::device {
namespace {

// The asked counters `source` offers: their indices there, and their names in asked order.
void select(const CounterSource& source, const std::vector<std::string>& asked,
            std::vector<std::size_t>& which, std::vector<std::string>& names) {
  const auto& offered = source.counters();
  for (const std::string& name : asked)
    for (std::size_t i = 0; i < offered.size(); ++i)
      if (offered[i].name == name) {
        which.push_back(i);
        names.push_back(name);
        break;
      }
}

}  // namespace

std::uint64_t trace_clock_ns() noexcept { return core::now_ns(); }

PeriodicSampler::PeriodicSampler(std::vector<std::string> counters, bool host,
                                 std::vector<int> gpus, std::uint64_t interval_ns)
    : counters_(std::move(counters)),
      host_(host),
      gpus_(std::move(gpus)),
      interval_ns_(interval_ns) {}

void PeriodicSampler::open(SampleSink& sink) {
  bool gpu_asked = false;
  for (const std::string& name : counters_) {
    const bool gpu = is_gpu_counter(name);
    gpu_asked = gpu_asked || gpu;
    if (!gpu && !is_host_counter(name))
      sink.problem(fmt::format(
          "no device offers a counter named {} (rocprof-mpi --list-counters lists them)", name));
  }
  auto add = [&](std::unique_ptr<CounterSource> source, std::int32_t device_id) {
    Opened opened;
    SampledDevice device;
    select(*source, counters_, opened.which, device.counters);
    if (device_id >= 0)  // a GPU counter of another vendor's GPUs (PCIe on AMD)
      for (const std::string& name : counters_)
        if (is_gpu_counter(name) && std::find(device.counters.begin(), device.counters.end(),
                                              name) == device.counters.end())
          sink.problem(fmt::format("{} does not offer {}", source->device(), name));
    if (opened.which.empty()) return;
    device.session = static_cast<std::uint32_t>(devices_.size() + 1);
    device.device_id = device_id;
    device.name = source->device();
    device.backend = source->backend();
    opened.values.resize(opened.which.size());
    opened.source = std::move(source);
    devices_.push_back(std::move(device));
    opened_.push_back(std::move(opened));
  };
  if (host_) add(host_counters(-1), -1);
  if (!gpu_asked) return;
  // The node's host sampler speaks for the node: a GPU counter with no GPU to read.
  if (std::string why; host_ && gpus_.empty() && gpu_count(why) == 0)
    sink.problem(fmt::format("GPU counters are not sampled: {}", why));
  for (const int gpu : gpus_) {
    std::string why;
    if (auto source = gpu_counters(gpu, why))
      add(std::move(source), gpu);
    else
      sink.problem(fmt::format("GPU {} is not sampled: {}", gpu, why));
  }
}

void PeriodicSampler::stop() noexcept {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
}

void PeriodicSampler::read_all(SampleSink& sink) {
  for (std::size_t d = 0; d < opened_.size(); ++d) {
    Opened& opened = opened_[d];
    const std::uint64_t before = trace_clock_ns();
    opened.source->read(opened.which, opened.values);
    // Midway through the read: instantaneous values were taken then, and rates end there.
    const std::uint64_t at = before + (trace_clock_ns() - before) / 2;
    for (std::size_t i = 0; i < opened.values.size(); ++i)
      if (std::isfinite(opened.values[i])) sink.sample(devices_[d], i, at, opened.values[i]);
  }
}

void PeriodicSampler::run(SampleSink& sink) {
  using Clock = std::chrono::steady_clock;
  const auto interval = std::chrono::nanoseconds(interval_ns_);
  open(sink);
  if (opened_.empty()) return;
  const std::uint64_t start_ns = trace_clock_ns();
  for (std::size_t d = 0; d < opened_.size(); ++d) {
    opened_[d].source->start();
    sink.session(devices_[d], start_ns, interval_ns_);
  }
  auto next = Clock::now() + interval;
  std::unique_lock lock(mutex_);
  while (!wake_.wait_until(lock, next, [this] { return stopping_; })) {
    lock.unlock();
    read_all(sink);
    lock.lock();
    next += interval;
    if (const auto now = Clock::now(); next <= now) next = now + interval;  // skip, not catch up
  }
  lock.unlock();
  read_all(sink);  // the last values, up to the stop
}

}  // namespace rocprof::device
