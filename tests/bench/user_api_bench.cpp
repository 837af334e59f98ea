// Cost of a rocprofsys_user_push_region / pop_region pair: run it plain (no profiler: the
// calls find nothing bound) and under the recorder with
//   LD_PRELOAD=build/lib/librocprof-mpi.so ROCPROF_MPI_OUTPUT_DIR=/tmp/x build/tests/user_api_bench
// Report: median ns per pair.
#include <benchmark/benchmark.h>
#include <rocprofiler-systems/user.h>

namespace {

void PushPopRegion(benchmark::State& state) {
  int result = 0;
  for (auto _ : state) {
    result |= rocprofsys_user_push_region("bench");
    result |= rocprofsys_user_pop_region("bench");
  }
  benchmark::DoNotOptimize(result);
  state.SetLabel(result == ROCPROFSYS_USER_ERROR_NO_BINDING ? "no profiler" : "recorded");
}
BENCHMARK(PushPopRegion)->Threads(1)->Threads(2);

}  // namespace

BENCHMARK_MAIN();
