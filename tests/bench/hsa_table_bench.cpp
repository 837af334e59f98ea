// Cost of an HSA call through the simulated runtime's API table (tests/register): run it
// plain (the table untouched) and with HSA_TOOLS_LIB=libroctracer64.so SIM_HSA_NO_REGISTER=1
// (every entry wrapped, no tool subscribed), and compare.
#include <benchmark/benchmark.h>
#include <hsa/hsa.h>

#include "tests/register/sim_hsa_runtime.h"

namespace {

void hsa_signal_load_through_the_table(benchmark::State& state) {
  hsa_init();
  state.counters["wrapped_entries"] = sim_hsa_wrapped_entries();
  const hsa_signal_t signal{3};
  hsa_signal_store_relaxed(signal, 7);
  for (auto _ : state) benchmark::DoNotOptimize(hsa_signal_load_relaxed(signal));
}
BENCHMARK(hsa_signal_load_through_the_table);

}  // namespace

BENCHMARK_MAIN();
