// A device whose counters a profiling session samples: the host, or a GPU through its
// vendor's management library. Sessions (device_sessions.cpp) find each counter name in the
// sources of the device they were made for, and read the values of a source together.
#pragma once

#include <cstddef>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace rocprof::device {

struct CounterInfo {
  std::string name;  // as sessions name it: "CPU_UTIL"
  std::string unit;  // "%", "bytes", "MHz", "W", "C", "bytes/s"
  std::string description;
};

// A reading the device did not give (it does not report that counter, or the read failed).
inline constexpr double kMissingReading = std::numeric_limits<double>::quiet_NaN();

class CounterSource {
 public:
  CounterSource() = default;
  virtual ~CounterSource() = default;
  CounterSource(const CounterSource&) = delete;
  CounterSource& operator=(const CounterSource&) = delete;

  // What it is, for listings and messages: "host", "GPU 0 (NVIDIA H100 80GB HBM3)".
  virtual std::string device() const = 0;
  // What reads it: "host" (/proc), "nvml", "rocm_smi".
  virtual std::string backend() const = 0;
  // The counters it offers on this machine.
  virtual const std::vector<CounterInfo>& counters() const = 0;
  // From here on, rates and utilisations are measured against this moment.
  virtual void start() = 0;
  // The current values of counters()[which[i]] into values[i]; a rate or utilisation covers
  // the time since the previous read (or start). Blocks while the device is read.
  virtual void read(std::span<const std::size_t> which, std::span<double> values) = 0;
};

}  // namespace rocprof::device
