// 16 threads emit ROC-TX marks into one pool at full speed: every record is delivered or
// counted as dropped, each thread's records arrive in order, and (in the ThreadSanitizer
// build of this test) no data race is reported. ROCPROF_STRESS_EVENTS overrides the
// per-thread count (the ThreadSanitizer run uses fewer events; it is ~10x slower).
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <thread>
#include <unordered_map>

#include "tests/unit/tracer_fixture.hpp"

namespace {

using rocprof::test::TracerTest;

// Checks records as they arrive instead of storing 16M copies.
struct OrderChecker {
  std::mutex mutex;
  std::unordered_map<uint32_t, uint64_t> last_correlation;  // per thread id
  std::unordered_map<uint32_t, uint64_t> last_time;
  std::unordered_map<uint32_t, uint64_t> count;
  std::unordered_map<uint32_t, std::string> label;
  uint64_t out_of_order = 0;
  uint64_t wrong_message = 0;
  uint64_t external_records = 0;

  static void on_buffer(const char* begin, const char* end, void* arg) {
    auto* self = static_cast<OrderChecker*>(arg);
    const std::lock_guard lock(self->mutex);
    for (const auto* r = reinterpret_cast<const activity_record_t*>(begin);
         r < reinterpret_cast<const activity_record_t*>(end); ++r) {
      if (r->domain == ACTIVITY_DOMAIN_EXT_API) {
        ++self->external_records;
        continue;
      }
      const uint32_t tid = r->thread_id;
      auto [it, first] = self->last_correlation.try_emplace(tid, r->correlation_id);
      if (!first) {
        if (r->correlation_id <= it->second || r->begin_ns < self->last_time[tid])
          ++self->out_of_order;
        it->second = r->correlation_id;
      }
      self->last_time[tid] = r->begin_ns;
      ++self->count[tid];
      auto [label_it, new_label] = self->label.try_emplace(tid, r->mark_message);
      if (!new_label && label_it->second != r->mark_message) ++self->wrong_message;
    }
  }
};

uint64_t events_per_thread() {
  // NOLINTNEXTLINE(concurrency-mt-unsafe): nothing in this test sets the environment
  const char* text = std::getenv("ROCPROF_STRESS_EVENTS");
  return text != nullptr ? std::strtoull(text, nullptr, 10) : 1000000;
}

class Concurrency : public TracerTest {};

TEST_F(Concurrency, SixteenThreadsEveryRecordDeliveredOrCountedInOrder) {
  constexpr int kThreads = 16;
  const uint64_t per_thread = events_per_thread();
  OrderChecker checker;
  roctracer_properties_t properties{};
  properties.buffer_size = 1 << 16;
  properties.buffer_callback_fun = &OrderChecker::on_buffer;
  properties.buffer_callback_arg = &checker;
  roctracer_pool_t* pool = nullptr;
  ASSERT_EQ(roctracer_open_pool_expl(&properties, &pool), ROCTRACER_STATUS_SUCCESS);
  pools_.push_back(pool);
  ASSERT_EQ(roctracer_enable_domain_activity_expl(ACTIVITY_DOMAIN_ROCTX, pool),
            ROCTRACER_STATUS_SUCCESS);

  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  std::vector<uint32_t> tids(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      tids[t] = static_cast<uint32_t>(syscall(SYS_gettid));
      const std::string label = "thread-" + std::to_string(t);
      // Half the threads run inside an external id, so paired records race too.
      if (t % 2 == 0) roctracer_activity_push_external_correlation_id(1000 + t);
      for (uint64_t i = 0; i < per_thread; ++i) roctxMarkA(label.c_str());
      if (t % 2 == 0) roctracer_activity_pop_external_correlation_id(nullptr);
    });
  }
  for (auto& thread : threads) thread.join();
  ASSERT_EQ(roctracer_flush_activity_expl(pool), ROCTRACER_STATUS_SUCCESS);

  rocprof_mpi_pool_stats_t stats{};
  ASSERT_EQ(rocprof_mpi_pool_stats(pool, &stats), ROCTRACER_STATUS_SUCCESS);
  const std::lock_guard lock(checker.mutex);
  uint64_t delivered_marks = 0;
  for (const auto& [tid, count] : checker.count) delivered_marks += count;
  // Dropped counts records: a mark with an external id is two.
  EXPECT_EQ(stats.delivered_records, delivered_marks + checker.external_records);
  uint64_t produced = 0;
  for (int t = 0; t < kThreads; ++t) produced += per_thread * (t % 2 == 0 ? 2 : 1);
  EXPECT_EQ(stats.delivered_records + stats.dropped_records, produced);
  EXPECT_EQ(checker.out_of_order, 0U);
  EXPECT_EQ(checker.wrong_message, 0U);
  for (int t = 0; t < kThreads; ++t)
    EXPECT_EQ(checker.label[tids[t]], "thread-" + std::to_string(t));
  std::printf("[ stress   ] %d threads x %llu events: delivered %llu, dropped %llu records\n",
              kThreads, static_cast<unsigned long long>(per_thread),
              static_cast<unsigned long long>(stats.delivered_records),
              static_cast<unsigned long long>(stats.dropped_records));
}

}  // namespace
