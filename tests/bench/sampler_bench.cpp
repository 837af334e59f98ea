// What sampling device counters costs (`rocprof-mpi --device-counters`): one read of each
// device, and the sampling thread's CPU time per second of a run at 10 ms. GPU benchmarks
// skip where no GPU's management library answers.
#include <benchmark/benchmark.h>

#include <chrono>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include "lib/device/gpu_counters.hpp"
#include "lib/device/host_counters.hpp"
#include "lib/device/periodic_sampler.hpp"

namespace {

using rocprof::device::CounterSource;

const std::vector<std::string> kHostCounters = {"CPU_UTIL", "HOST_MEM_USED", "PROCESS_RSS"};
const std::vector<std::string> kGpuCounters = {"GPU_UTIL",       "GPU_MEM_UTIL", "GPU_SM_CLOCK",
                                               "GPU_MEM_CLOCK",  "GPU_POWER",    "GPU_MEM_USED",
                                               "GPU_TEMPERATURE"};

double thread_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

// Indices of `names` in `source`'s counters.
std::vector<std::size_t> indices(const CounterSource& source,
                                 const std::vector<std::string>& names) {
  std::vector<std::size_t> which;
  for (const std::string& name : names)
    for (std::size_t i = 0; i < source.counters().size(); ++i)
      if (source.counters()[i].name == name) which.push_back(i);
  return which;
}

void read_source(benchmark::State& state, CounterSource& source,
                 const std::vector<std::string>& names) {
  const std::vector<std::size_t> which = indices(source, names);
  std::vector<double> values(which.size());
  source.start();
  for (auto _ : state) {
    source.read(which, values);
    benchmark::DoNotOptimize(values.data());
  }
  state.counters["counters"] = static_cast<double>(which.size());
}

void BM_ReadHost(benchmark::State& state) {
  auto source = rocprof::device::host_counters(-1);
  read_source(state, *source, kHostCounters);
}
BENCHMARK(BM_ReadHost)->Unit(benchmark::kMicrosecond);

void BM_ReadGpu(benchmark::State& state) {
  std::string why;
  auto source = rocprof::device::gpu_counters(0, why);
  if (!source) {
    state.SkipWithError(("no GPU: " + why).c_str());
    for (auto _ : state) {
    }
    return;
  }
  read_source(state, *source, kGpuCounters);
}
BENCHMARK(BM_ReadGpu)->Unit(benchmark::kMicrosecond);

// Discards what it is given: the cost measured is reading, not recording.
class NullSink final : public rocprof::device::SampleSink {
 public:
  void problem(const std::string& /*text*/) override {}
  void session(const rocprof::device::SampledDevice& /*device*/, std::uint64_t /*start*/,
               std::uint64_t /*interval*/) override {}
  void sample(const rocprof::device::SampledDevice& /*device*/, std::size_t /*counter*/,
              std::uint64_t /*time*/, double value) override {
    benchmark::DoNotOptimize(value);
  }
};

// The sampling thread's CPU time per second of wall time: the host and, with a GPU, GPU 0
// (all of the counters above), sampled every 10 ms for one second per iteration.
void BM_SamplerCpuPerSecond(benchmark::State& state) {
  const bool with_gpu = state.range(0) != 0;
  std::string why;
  if (with_gpu && rocprof::device::gpu_count(why) == 0) {
    state.SkipWithError(("no GPU: " + why).c_str());
    for (auto _ : state) {
    }
    return;
  }
  std::vector<std::string> counters = kHostCounters;
  if (with_gpu) counters.insert(counters.end(), kGpuCounters.begin(), kGpuCounters.end());
  double cpu = 0;
  double wall = 0;
  for (auto _ : state) {
    rocprof::device::PeriodicSampler sampler(
        counters, true, with_gpu ? std::vector<int>{0} : std::vector<int>{}, 10'000'000);
    NullSink sink;
    double used = 0;
    const auto began = std::chrono::steady_clock::now();
    std::thread thread([&] {
      const double before = thread_cpu_seconds();
      sampler.run(sink);
      used = thread_cpu_seconds() - before;
    });
    std::this_thread::sleep_for(std::chrono::seconds(1));
    sampler.stop();
    thread.join();
    wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    cpu += used;
  }
  state.counters["cpu_ms_per_s"] = 1000.0 * cpu / wall;
}
BENCHMARK(BM_SamplerCpuPerSecond)->Arg(0)->Arg(1)->Iterations(3)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
