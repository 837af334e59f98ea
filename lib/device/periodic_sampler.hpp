// Reads the counters asked for from a set of devices (the host, GPUs) at a fixed interval, on
// the thread that runs it, and hands every reading to a sink: the recorder's sampler under
// `rocprof-mpi --device-counters`, on a thread of the recorder's that the application never
// waits for.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "lib/device/counter_source.hpp"

namespace rocprof::device {

// A device the sampler reads, and what of it.
struct SampledDevice {
  std::uint32_t session = 0;          // 1, 2, ... in the order opened (the host first)
  std::int32_t device_id = -1;        // GPU index of its management library, -1 for the host
  std::string name;                   // "host", "GPU 0 (NVIDIA H100 80GB HBM3)"
  std::string backend;                // "host", "nvml", "rocm_smi"
  std::vector<std::string> counters;  // those of the asked ones it offers, in the order asked
};

class SampleSink {
 public:
  SampleSink() = default;
  virtual ~SampleSink() = default;
  SampleSink(const SampleSink&) = delete;
  SampleSink& operator=(const SampleSink&) = delete;

  // Something asked for that cannot be sampled (one line: an unknown name, an absent GPU).
  virtual void problem(const std::string& text) = 0;
  // A device's sampling starts (once per device, before its first sample).
  virtual void session(const SampledDevice& device, std::uint64_t start_ns,
                       std::uint64_t interval_ns) = 0;
  // One reading of `device.counters[counter]`; readings the device did not give are skipped.
  virtual void sample(const SampledDevice& device, std::size_t counter, std::uint64_t timestamp_ns,
                      double value) = 0;
};

// The trace clock (CLOCK_BOOTTIME) in ns: the clock of the rank files.
std::uint64_t trace_clock_ns() noexcept;

class PeriodicSampler {
 public:
  // To sample `counters` of the host (with `host`) and of each GPU of `gpus`, every
  // `interval_ns`. Nothing is opened yet.
  PeriodicSampler(std::vector<std::string> counters, bool host, std::vector<int> gpus,
                  std::uint64_t interval_ns);

  // On the calling thread (the sampling thread): opens the devices that offer one of the
  // counters, then reads each of them into `sink` every interval until stop(). Missed
  // intervals are skipped, not caught up; the last read comes after the stop. The host's CPUs
  // are those the calling thread may run on.
  void run(SampleSink& sink);
  // From any thread: run() returns after its current read and one last one.
  void stop() noexcept;

  // The devices run() opened (the host first), once it has.
  const std::vector<SampledDevice>& devices() const noexcept { return devices_; }

 private:
  struct Opened {
    std::unique_ptr<CounterSource> source;
    std::vector<std::size_t> which;  // indices into source->counters()
    std::vector<double> values;
  };

  void open(SampleSink& sink);
  void read_all(SampleSink& sink);

  std::vector<std::string> counters_;
  bool host_;
  std::vector<int> gpus_;
  std::uint64_t interval_ns_;
  std::vector<SampledDevice> devices_;
  std::vector<Opened> opened_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
};

}  // namespace rocprof::device
