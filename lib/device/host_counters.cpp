#include "lib/device/host_counters.hpp"

#include <sched.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace rocprof::device {
namespace {

// Busy and total jiffies of a set of CPUs, from /proc/stat.
struct CpuTimes {
  std::uint64_t busy = 0;
  std::uint64_t total = 0;
};

CpuTimes cpu_times(const std::vector<int>& cpus) {
  std::ifstream stat("/proc/stat");
  CpuTimes times;
  std::string line;
  while (std::getline(stat, line)) {
    if (line.rfind("cpu", 0) != 0 || line.size() < 4 || line[3] < '0' || line[3] > '9') continue;
    std::istringstream fields(line.substr(3));
    int cpu = -1;
    fields >> cpu;
    bool wanted = false;
    for (const int one : cpus) wanted = wanted || one == cpu;
    if (!wanted) continue;
    // user nice system idle iowait irq softirq steal (guest time is within user/nice)
    std::uint64_t value[8] = {};
    for (std::uint64_t& field : value) fields >> field;
    const std::uint64_t idle = value[3] + value[4];
    std::uint64_t total = 0;
    for (const std::uint64_t field : value) total += field;
    times.busy += total - idle;
    times.total += total;
  }
  return times;
}

// The node's memory and the part of it available, from one read of /proc/meminfo (its
// values are in kB); 0 for a field it lacks.
struct Memory {
  std::uint64_t total = 0;
  std::uint64_t available = 0;
};
Memory node_memory() {
  std::ifstream meminfo("/proc/meminfo");
  Memory memory;
  std::string name;
  std::uint64_t kilobytes = 0;
  std::string unit;
  while (meminfo >> name >> kilobytes) {
    std::getline(meminfo, unit);
    if (name == "MemTotal:") memory.total = kilobytes * 1024;
    if (name == "MemAvailable:") memory.available = kilobytes * 1024;
  }
  return memory;
}

std::uint64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::uint64_t size = 0;
  std::uint64_t resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

const std::vector<CounterInfo>& host_counter_list() {
  static const std::vector<CounterInfo> kCounters = {
      {"CPU_UTIL", "%", "busy share of the session's CPUs since the previous poll"},
      {"HOST_MEM_USED", "bytes", "the node's memory in use (MemTotal - MemAvailable)"},
      {"HOST_MEM_TOTAL", "bytes", "the node's memory"},
      {"PROCESS_RSS", "bytes", "the polling process's resident memory"},
  };
  return kCounters;
}

class HostCounters final : public CounterSource {
 public:
  explicit HostCounters(std::vector<int> cpus) : cpus_(std::move(cpus)) {}

  std::string device() const override { return "host"; }
  std::string backend() const override { return "host"; }

  const std::vector<CounterInfo>& counters() const override { return host_counter_list(); }

  void start() override { last_ = cpu_times(cpus_); }

  void read(std::span<const std::size_t> which, std::span<double> values) override {
    const CpuTimes now = cpu_times(cpus_);
    const std::uint64_t total = now.total - last_.total;
    const double utilisation = total == 0 ? 0.0
                                          : 100.0 * static_cast<double>(now.busy - last_.busy) /
                                                static_cast<double>(total);
    last_ = now;
    const Memory memory = node_memory();
    for (std::size_t i = 0; i < which.size(); ++i) {
      switch (which[i]) {
        case 0:
          values[i] = utilisation;
          break;
        case 1:
          values[i] = static_cast<double>(memory.total - memory.available);
          break;
        case 2:
          values[i] = static_cast<double>(memory.total);
          break;
        default:
          values[i] = static_cast<double>(resident_bytes());
          break;
      }
    }
  }

 private:
  std::vector<int> cpus_;
  CpuTimes last_;
};

}  // namespace

bool is_host_counter(const std::string& name) {
  for (const CounterInfo& counter : host_counter_list())
    if (counter.name == name) return true;
  return false;
}

std::unique_ptr<CounterSource> host_counters(int cpu) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  std::vector<int> cpus;
  if (::sched_getaffinity(0, sizeof allowed, &allowed) == 0) {
    for (int one = 0; one < CPU_SETSIZE; ++one)
      if (CPU_ISSET(one, &allowed)) cpus.push_back(one);
  }
  const long online = ::sysconf(_SC_NPROCESSORS_CONF);
  if (cpu >= 0) {
    if (cpu >= online) return nullptr;
    cpus = {cpu};
  }
  return std::make_unique<HostCounters>(std::move(cpus));
}

}  // namespace rocprof::device
