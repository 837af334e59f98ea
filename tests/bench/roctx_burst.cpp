// The recorder-under-load benchmark's program (recorder_load.py): THREADS threads each run
// ITERATIONS iterations of a ROC-TX push+pop pair (`pair`) or push+mark+pop (`burst`), as
// fast as they can. Prints the median over threads of the ns per iteration.
// Usage: roctx_burst pair|burst THREADS ITERATIONS
#include <roctracer/roctx.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s pair|burst THREADS ITERATIONS\n", argv[0]);
    return 2;
  }
  const bool burst = std::strcmp(argv[1], "burst") == 0;
  const int threads = std::atoi(argv[2]);
  const long iterations = std::atol(argv[3]);
  std::vector<double> per_iteration(static_cast<std::size_t>(threads));
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      const auto start = std::chrono::steady_clock::now();
      for (long i = 0; i < iterations; ++i) {
        roctxRangePushA("iteration");
        if (burst) roctxMarkA("step");
        roctxRangePop();
      }
      const std::chrono::duration<double, std::nano> spent =
          std::chrono::steady_clock::now() - start;
      per_iteration[static_cast<std::size_t>(t)] = spent.count() / static_cast<double>(iterations);
    });
  for (auto& worker : workers) worker.join();
  std::sort(per_iteration.begin(), per_iteration.end());
  std::printf("%.1f\n", per_iteration[per_iteration.size() / 2]);
  return 0;
}
