#include "lib/device/host_counters.hpp"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rocprof::device {
namespace {

// A /proc file read whole again at each sample: opened once (the path walk was most of a
// read's cost), reopened if the application closed it under us.
class ProcFile {
 public:
  explicit ProcFile(const char* path) : path_(path) {}
  ~ProcFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  ProcFile(const ProcFile&) = delete;
  ProcFile& operator=(const ProcFile&) = delete;

  // The file's text now ("" if it cannot be read).
  std::string_view read() {
    for (int attempt = 0; attempt < 2; ++attempt) {
      if (fd_ < 0) fd_ = ::open(path_, O_RDONLY | O_CLOEXEC);
      if (fd_ < 0) return {};
      std::size_t size = 0;
      ssize_t got = 0;
      while (true) {
        if (text_.size() - size < 4096) text_.resize(text_.size() + 16384);
        got = ::pread(fd_, text_.data() + size, text_.size() - size, static_cast<off_t>(size));
        if (got <= 0) break;
        size += static_cast<std::size_t>(got);
      }
      if (got == 0) return {text_.data(), size};
      ::close(fd_);  // not ours any more, or failing: once more, freshly opened
      fd_ = -1;
    }
    return {};
  }

 private:
  const char* path_;
  int fd_ = -1;
  std::string text_;
};

// The next unsigned number of `text` from `at` (skipping what precedes it); 0 at the end.
std::uint64_t next_number(std::string_view text, std::size_t& at) {
  while (at < text.size() && (text[at] < '0' || text[at] > '9')) {
    if (text[at] == '\n') return 0;  // the line ended first
    ++at;
  }
  std::uint64_t value = 0;
  const auto [end, code] = std::from_chars(text.data() + at, text.data() + text.size(), value);
  at = static_cast<std::size_t>(end - text.data());
  return code == std::errc{} ? value : 0;
}

// Busy and total jiffies of a set of CPUs.
struct CpuTimes {
  std::uint64_t busy = 0;
  std::uint64_t total = 0;
};

CpuTimes cpu_times(std::string_view stat, const std::vector<bool>& wanted) {
  CpuTimes times;
  std::size_t line = 0;
  while (line < stat.size()) {
    std::size_t end = stat.find('\n', line);
    if (end == std::string_view::npos) end = stat.size();
    // "cpuN user nice system idle iowait irq softirq steal ..." (guest time is within user)
    if (stat.compare(line, 3, "cpu") == 0 && line + 3 < end && stat[line + 3] >= '0' &&
        stat[line + 3] <= '9') {
      std::size_t at = line + 3;
      const std::uint64_t cpu = next_number(stat, at);
      if (cpu < wanted.size() && wanted[cpu]) {
        std::uint64_t value[8] = {};
        for (std::uint64_t& field : value) field = next_number(stat, at);
        const std::uint64_t idle = value[3] + value[4];
        std::uint64_t total = 0;
        for (const std::uint64_t field : value) total += field;
        times.busy += total - idle;
        times.total += total;
      }
    }
    line = end + 1;
  }
  return times;
}

// A "Name:   N kB" field of /proc/meminfo, in bytes (0 if absent).
std::uint64_t meminfo_bytes(std::string_view meminfo, std::string_view name) {
  const std::size_t found = meminfo.find(name);
  if (found == std::string_view::npos) return 0;
  std::size_t at = found + name.size();
  return next_number(meminfo, at) * 1024;
}

class HostCounters final : public CounterSource {
 public:
  explicit HostCounters(const std::vector<int>& cpus) {
    for (const int cpu : cpus) {
      if (static_cast<std::size_t>(cpu) >= wanted_.size())
        wanted_.resize(static_cast<std::size_t>(cpu) + 1, false);
      wanted_[static_cast<std::size_t>(cpu)] = true;
    }
  }

  std::string device() const override { return "host"; }
  std::string backend() const override { return "host"; }

  const std::vector<CounterInfo>& counters() const override { return host_counter_list(); }

  void start() override { last_ = cpu_times(stat_.read(), wanted_); }

  void read(std::span<const std::size_t> which, std::span<double> values) override {
    bool cpu = false;
    bool memory = false;
    for (const std::size_t counter : which) {
      cpu = cpu || counter == kCpuUtil;
      memory = memory || counter == kMemUsed || counter == kMemTotal;
    }
    double utilisation = 0;
    if (cpu) {
      const CpuTimes now = cpu_times(stat_.read(), wanted_);
      const std::uint64_t total = now.total - last_.total;
      if (total != 0)
        utilisation =
            100.0 * static_cast<double>(now.busy - last_.busy) / static_cast<double>(total);
      last_ = now;
    }
    std::uint64_t total = 0;
    std::uint64_t available = 0;
    if (memory) {
      const std::string_view meminfo = meminfo_.read();
      total = meminfo_bytes(meminfo, "MemTotal:");
      available = meminfo_bytes(meminfo, "MemAvailable:");
    }
    for (std::size_t i = 0; i < which.size(); ++i) {
      switch (which[i]) {
        case kCpuUtil:
          values[i] = utilisation;
          break;
        case kMemUsed:
          values[i] = total == 0 ? kMissingReading : static_cast<double>(total - available);
          break;
        case kMemTotal:
          values[i] = total == 0 ? kMissingReading : static_cast<double>(total);
          break;
        default:
          values[i] = resident_bytes();
          break;
      }
    }
  }

 private:
  static constexpr std::size_t kCpuUtil = 0;
  static constexpr std::size_t kMemUsed = 1;
  static constexpr std::size_t kMemTotal = 2;

  double resident_bytes() {
    // "size resident shared ..." in pages.
    const std::string_view statm = statm_.read();
    std::size_t at = 0;
    next_number(statm, at);
    const std::uint64_t pages = next_number(statm, at);
    if (statm.empty()) return kMissingReading;
    return static_cast<double>(pages * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)));
  }

  std::vector<bool> wanted_;
  CpuTimes last_;
  ProcFile stat_{"/proc/stat"};
  ProcFile meminfo_{"/proc/meminfo"};
  ProcFile statm_{"/proc/self/statm"};
};

}  // namespace

const std::vector<CounterInfo>& host_counter_list() {
  static const std::vector<CounterInfo> kCounters = {
      {"CPU_UTIL", "%", "busy share of the session's CPUs since the previous poll"},
      {"HOST_MEM_USED", "bytes", "the node's memory in use (MemTotal - MemAvailable)"},
      {"HOST_MEM_TOTAL", "bytes", "the node's memory"},
      {"PROCESS_RSS", "bytes", "the polling process's resident memory"},
  };
  return kCounters;
}

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
  return std::make_unique<HostCounters>(cpus);
}

}  // namespace rocprof::device
