// Cost of ROC-TX events and external-id push/pop through libroctx64 + libroctracer64:
// (a) nothing enabled, (b) a ROCTX callback, (c) activity into a pool; 1..N threads.
// Report: median ns per event (per iteration: one mark, one push+pop pair, one id pair).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include <roctracer/roctracer.h>
#include <roctracer/roctracer_ext.h>
#include <roctracer/roctracer_roctx.h>
#include <roctracer/roctx.h>

namespace {

enum Mode { kNothing = 0, kCallback = 1, kActivity = 2 };

// Per thread: a shared counter would measure cache-line contention, not the tracer.
thread_local std::uint64_t tl_callback_count = 0;
std::atomic<std::uint64_t> g_delivered{0};
roctracer_pool_t* g_pool = nullptr;
std::mutex g_setup_mutex;

void count_callback(uint32_t /*domain*/, uint32_t /*op*/, const void* /*data*/, void* /*arg*/) {
  ++tl_callback_count;
}
void count_buffer(const char* begin, const char* end, void* /*arg*/) {
  g_delivered.fetch_add((end - begin) / sizeof(activity_record_t), std::memory_order_relaxed);
}

void setup(Mode mode) {
  const std::lock_guard lock(g_setup_mutex);
  roctracer_disable_callback();
  roctracer_disable_activity();
  if (mode == kCallback)
    roctracer_enable_domain_callback(ACTIVITY_DOMAIN_ROCTX, count_callback, nullptr);
  if (mode == kActivity) {
    if (g_pool == nullptr) {
      roctracer_properties_t properties{};
      properties.buffer_size = 1 << 16;
      properties.buffer_callback_fun = count_buffer;
      roctracer_open_pool_expl(&properties, &g_pool);
    }
    roctracer_enable_domain_activity_expl(ACTIVITY_DOMAIN_ROCTX, g_pool);
  }
}

void BM_RangePushPop(benchmark::State& state) {
  if (state.thread_index() == 0) setup(static_cast<Mode>(state.range(0)));
  for (auto _ : state) {
    roctxRangePushA("range");
    roctxRangePop();
  }
  state.SetItemsProcessed(state.iterations() * 2);
}

void BM_Mark(benchmark::State& state) {
  if (state.thread_index() == 0) setup(static_cast<Mode>(state.range(0)));
  for (auto _ : state) roctxMarkA("mark");
  state.SetItemsProcessed(state.iterations());
}

void BM_ExternalIdPushPop(benchmark::State& state) {
  if (state.thread_index() == 0) setup(static_cast<Mode>(state.range(0)));
  activity_correlation_id_t id = 0;
  for (auto _ : state) {
    roctracer_activity_push_external_correlation_id(++id);
    roctracer_activity_pop_external_correlation_id(nullptr);
  }
  state.SetItemsProcessed(state.iterations());
}

// Up to one thread per core: oversubscribed runs measure the scheduler, not the tracer.
const int kMaxThreads = static_cast<int>(std::max(2U, std::thread::hardware_concurrency()));

// Mode names in the output: /0 nothing, /1 callback, /2 activity.
BENCHMARK(BM_RangePushPop)->DenseRange(0, 2)->ThreadRange(1, kMaxThreads)->UseRealTime();
BENCHMARK(BM_Mark)->DenseRange(0, 2)->ThreadRange(1, kMaxThreads)->UseRealTime();
BENCHMARK(BM_ExternalIdPushPop)->DenseRange(0, 2)->ThreadRange(1, kMaxThreads)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
