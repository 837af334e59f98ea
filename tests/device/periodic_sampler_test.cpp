// The sampler behind `rocprof-mpi --device-counters`: the host read for real, the GPUs of the
// simulated ROCm SMI (tests/sim/rocm_smi/, named by ROCPROF_MPI_ROCM_SMI_LIBRARY).
#include "lib/device/periodic_sampler.hpp"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

using rocprof::device::PeriodicSampler;
using rocprof::device::SampledDevice;

struct Sample {
  std::uint32_t session;
  std::string counter;
  std::uint64_t timestamp_ns;
  double value;
};

// What a sampler handed out (only its own thread calls the sink while it runs).
class RecordingSink final : public rocprof::device::SampleSink {
 public:
  void problem(const std::string& text) override { problems.push_back(text); }
  void session(const SampledDevice& device, std::uint64_t start_ns,
               std::uint64_t interval_ns) override {
    sessions.push_back(device);
    starts.push_back(start_ns);
    intervals.push_back(interval_ns);
  }
  void sample(const SampledDevice& device, std::size_t counter, std::uint64_t timestamp_ns,
              double value) override {
    samples.push_back({device.session, device.counters[counter], timestamp_ns, value});
  }

  std::vector<Sample> of(std::uint32_t session, const std::string& counter) const {
    std::vector<Sample> found;
    for (const Sample& sample : samples)
      if (sample.session == session && sample.counter == counter) found.push_back(sample);
    return found;
  }

  std::vector<std::string> problems;
  std::vector<SampledDevice> sessions;
  std::vector<std::uint64_t> starts;
  std::vector<std::uint64_t> intervals;
  std::vector<Sample> samples;
};

constexpr std::uint64_t kTenMs = 10'000'000;

// Runs `sampler` on a thread for `duration`.
void sample_for(PeriodicSampler& sampler, RecordingSink& sink, std::chrono::milliseconds duration) {
  std::thread thread([&] { sampler.run(sink); });
  std::this_thread::sleep_for(duration);
  sampler.stop();
  thread.join();
}

class PeriodicSamplerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(std::getenv("ROCPROF_MPI_ROCM_SMI_LIBRARY"), nullptr)  // NOLINT
        << "run with ROCPROF_MPI_ROCM_SMI_LIBRARY naming the simulated library";
  }
};

TEST_F(PeriodicSamplerTest, ReadsEachDeviceEveryInterval) {
  setenv("SIM_ROCM_SMI_BUSY_0", "65", 1);  // NOLINT(concurrency-mt-unsafe): no thread yet
  PeriodicSampler sampler({"GPU_UTIL", "CPU_UTIL", "GPU_PCIE_TX", "PROCESS_RSS"}, true, {0, 1},
                          kTenMs);
  RecordingSink sink;
  sample_for(sampler, sink, std::chrono::milliseconds(300));
  unsetenv("SIM_ROCM_SMI_BUSY_0");  // NOLINT(concurrency-mt-unsafe)

  // The host first, then the GPUs; each with the asked counters it offers, in asked order.
  ASSERT_EQ(sink.sessions.size(), 3U);
  EXPECT_EQ(sink.sessions[0].session, 1U);
  EXPECT_EQ(sink.sessions[0].device_id, -1);
  EXPECT_EQ(sink.sessions[0].name, "host");
  EXPECT_EQ(sink.sessions[0].backend, "host");
  EXPECT_EQ(sink.sessions[0].counters, (std::vector<std::string>{"CPU_UTIL", "PROCESS_RSS"}));
  for (int gpu = 0; gpu < 2; ++gpu) {
    const SampledDevice& device = sink.sessions[static_cast<std::size_t>(gpu) + 1];
    EXPECT_EQ(device.session, static_cast<std::uint32_t>(gpu) + 2);
    EXPECT_EQ(device.device_id, gpu);
    EXPECT_EQ(device.backend, "rocm_smi");
    EXPECT_NE(device.name.find("Simulated"), std::string::npos) << device.name;
    EXPECT_EQ(device.counters, std::vector<std::string>{"GPU_UTIL"});
  }
  EXPECT_EQ(sink.intervals, std::vector<std::uint64_t>(3, kTenMs));
  // PCIe throughput is NVML's only: each GPU says so once.
  ASSERT_EQ(sink.problems.size(), 2U);
  EXPECT_NE(sink.problems[0].find("GCD 0) does not offer GPU_PCIE_TX"), std::string::npos)
      << sink.problems[0];

  for (const auto& [session, counter] : std::vector<std::pair<std::uint32_t, std::string>>{
           {1, "CPU_UTIL"}, {1, "PROCESS_RSS"}, {2, "GPU_UTIL"}, {3, "GPU_UTIL"}}) {
    const std::vector<Sample> series = sink.of(session, counter);
    // 300 ms at 10 ms: 30 reads and the last one, less what a loaded machine skipped.
    EXPECT_GE(series.size(), 10U) << counter;
    EXPECT_LE(series.size(), 31U) << counter;
    for (std::size_t i = 1; i < series.size(); ++i)
      EXPECT_GT(series[i].timestamp_ns, series[i - 1].timestamp_ns) << counter;
    ASSERT_FALSE(series.empty());
    EXPECT_GE(series.front().timestamp_ns, sink.starts[session - 1] + kTenMs / 2) << counter;
  }
  for (const Sample& sample : sink.of(2, "GPU_UTIL")) EXPECT_EQ(sample.value, 65.0);
  for (const Sample& sample : sink.of(3, "GPU_UTIL")) EXPECT_EQ(sample.value, 0.0);
  for (const Sample& sample : sink.of(1, "PROCESS_RSS")) EXPECT_GT(sample.value, 1 << 20);
}

TEST_F(PeriodicSamplerTest, NamesNoDeviceOffersAreReportedAndTheRestIsSampled) {
  PeriodicSampler sampler({"CPU_UTIL", "NO_SUCH_COUNTER"}, true, {}, kTenMs);
  RecordingSink sink;
  sample_for(sampler, sink, std::chrono::milliseconds(50));
  ASSERT_EQ(sink.problems.size(), 1U);
  EXPECT_NE(sink.problems[0].find("no device offers a counter named NO_SUCH_COUNTER"),
            std::string::npos);
  ASSERT_EQ(sink.sessions.size(), 1U);
  EXPECT_FALSE(sink.of(1, "CPU_UTIL").empty());
}

TEST_F(PeriodicSamplerTest, AnAbsentGpuIsReportedAndNothingOfItSampled) {
  PeriodicSampler sampler({"GPU_UTIL"}, false, {1, 7}, kTenMs);
  RecordingSink sink;
  sample_for(sampler, sink, std::chrono::milliseconds(30));
  ASSERT_EQ(sink.sessions.size(), 1U);
  EXPECT_EQ(sink.sessions[0].device_id, 1);
  ASSERT_EQ(sink.problems.size(), 1U);
  EXPECT_NE(sink.problems[0].find("GPU 7 is not sampled"), std::string::npos) << sink.problems[0];
}

TEST_F(PeriodicSamplerTest, AStopBeforeTheFirstIntervalStillReadsOnce) {
  PeriodicSampler sampler({"CPU_UTIL", "HOST_MEM_TOTAL"}, true, {}, 3'600'000'000'000ULL);
  sampler.stop();
  RecordingSink sink;
  sampler.run(sink);  // returns at once: stopped
  ASSERT_EQ(sink.sessions.size(), 1U);
  EXPECT_EQ(sink.of(1, "CPU_UTIL").size(), 1U);
  ASSERT_EQ(sink.of(1, "HOST_MEM_TOTAL").size(), 1U);
  EXPECT_GT(sink.of(1, "HOST_MEM_TOTAL")[0].value, 0.0);
}

TEST_F(PeriodicSamplerTest, ACpuBurningChildRaisesCpuUtilisation) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
  const int cpus = CPU_COUNT(&allowed);
  auto mean_utilisation = [](const RecordingSink& sink) {
    double sum = 0;
    const auto series = sink.of(1, "CPU_UTIL");
    for (const Sample& sample : series) sum += sample.value;
    return series.empty() ? -1.0 : sum / static_cast<double>(series.size());
  };
  // A child per CPU, burning until killed (forked before any thread of this test runs).
  std::vector<pid_t> children;
  for (int i = 0; i < cpus; ++i) {
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0)
      while (true) asm volatile("" ::: "memory");  // burns until killed
    children.push_back(child);
  }
  PeriodicSampler burning({"CPU_UTIL"}, true, {}, kTenMs * 5);
  RecordingSink busy;
  sample_for(burning, busy, std::chrono::milliseconds(500));
  for (const pid_t child : children) {
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
  }
  EXPECT_GT(mean_utilisation(busy), 75.0) << "the process's " << cpus << " CPUs with a burner each";
}

}  // namespace
