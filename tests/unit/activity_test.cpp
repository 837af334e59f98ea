// Activity pools fed by ROC-TX: record contents, external ids, default and explicit pools,
// flush, close, thread exit, custom allocators, drops under a slow consumer.
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>
#include <cstdio>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <rocprof-mpi/external_id.h>

#include "tests/unit/tracer_fixture.hpp"

namespace {

using rocprof::test::RecordCollector;
using rocprof::test::TracerTest;

class Activity : public TracerTest {};

uint32_t gettid_u32() { return static_cast<uint32_t>(syscall(SYS_gettid)); }

TEST_F(Activity, RoctxRecordsCarryTimeThreadMessageAndRangeIdentity) {
  RecordCollector collector;
  roctracer_properties_t properties = collector.properties();
  ASSERT_EQ(roctracer_open_pool(&properties), ROCTRACER_STATUS_SUCCESS);
  ASSERT_EQ(roctracer_enable_domain_activity(ACTIVITY_DOMAIN_ROCTX), ROCTRACER_STATUS_SUCCESS);
  roctracer_timestamp_t t0 = 0;
  roctracer_timestamp_t t1 = 0;
  roctracer_get_timestamp(&t0);
  roctxMarkA("mark");
  roctxRangePushA("outer");
  roctxRangePushA("inner");
  roctxRangePop();
  roctxRangePop();
  const roctx_range_id_t id = roctxRangeStartA("async");
  roctxRangeStop(id);
  roctracer_get_timestamp(&t1);
  ASSERT_EQ(roctracer_flush_activity(), ROCTRACER_STATUS_SUCCESS);

  const auto records = collector.records();
  ASSERT_EQ(records.size(), 7U);
  const uint32_t ops[] = {0, 1, 1, 2, 2, 3, 4};
  const uint32_t levels[] = {0, 0, 1, 1, 0, 0, 0};
  for (size_t i = 0; i < records.size(); ++i) {
    const activity_record_t& r = records[i].record;
    EXPECT_EQ(r.domain, static_cast<uint32_t>(ACTIVITY_DOMAIN_ROCTX)) << i;
    EXPECT_EQ(r.op, ops[i]) << i;
    EXPECT_EQ(r.kind, levels[i]) << i;
    EXPECT_EQ(r.process_id, static_cast<uint32_t>(getpid()));
    EXPECT_EQ(r.thread_id, gettid_u32());
    EXPECT_GE(r.begin_ns, t0);
    EXPECT_LE(r.end_ns, t1);
    EXPECT_EQ(r.begin_ns, r.end_ns);
    if (i > 0) {
      EXPECT_GE(r.begin_ns, records[i - 1].record.begin_ns);
    }
  }
  EXPECT_EQ(records[0].message, "mark");
  EXPECT_EQ(records[1].message, "outer");
  EXPECT_EQ(records[2].message, "inner");
  EXPECT_FALSE(records[3].has_message);
  // Push and pop of one range share a correlation id; ranges differ.
  EXPECT_EQ(records[2].record.correlation_id, records[3].record.correlation_id);
  EXPECT_EQ(records[1].record.correlation_id, records[4].record.correlation_id);
  EXPECT_NE(records[1].record.correlation_id, records[2].record.correlation_id);
  // Start and stop carry the range id.
  EXPECT_EQ(records[5].record.correlation_id, id);
  EXPECT_EQ(records[6].record.correlation_id, id);
  EXPECT_EQ(records[5].message, "async");
}

TEST_F(Activity, RepeatedTextsAreKeptOnceAndReusedBuffersKeepEachText) {
  RecordCollector collector;
  roctracer_properties_t properties = collector.properties();
  ASSERT_EQ(roctracer_open_pool(&properties), ROCTRACER_STATUS_SUCCESS);
  ASSERT_EQ(roctracer_enable_domain_activity(ACTIVITY_DOMAIN_ROCTX), ROCTRACER_STATUS_SUCCESS);
  // One buffer, rewritten between marks (as a program formatting its messages does), and
  // one text marked again and again. Longer and shorter texts at the same address.
  char buffer[64];
  const std::vector<std::string> texts = {"step 1", "step 1", "step 22", "s", "step 1"};
  for (const std::string& text : texts) {
    std::snprintf(buffer, sizeof buffer, "%s", text.c_str());
    roctxMarkA(buffer);
    roctxMarkA("again");
  }
  std::snprintf(buffer, sizeof buffer, "overwritten");  // after every mark: none may show it
  ASSERT_EQ(roctracer_flush_activity(), ROCTRACER_STATUS_SUCCESS);
  const auto records = collector.records();
  ASSERT_EQ(records.size(), 2 * texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i) {
    EXPECT_EQ(records[2 * i].message, texts[i]) << i;
    EXPECT_EQ(records[2 * i + 1].message, "again") << i;
    // The repeated text is one lasting copy: the same address in every record.
    EXPECT_EQ(records[2 * i + 1].record.mark_message, records[1].record.mark_message);
  }
  EXPECT_STREQ(records[1].record.mark_message, "again");  // still valid after delivery
}

TEST_F(Activity, ExternalIdRecordPrecedesEachRecordWhileStackIsNotEmpty) {
  RecordCollector collector;
  roctracer_pool_t* pool = open_pool(collector);
  ASSERT_EQ(roctracer_enable_op_activity_expl(ACTIVITY_DOMAIN_ROCTX, ROCTX_API_ID_roctxMarkA, pool),
            ROCTRACER_STATUS_SUCCESS);
  ASSERT_EQ(roctracer_activity_push_external_correlation_id(7), ROCTRACER_STATUS_SUCCESS);
  roctxMarkA("a");
  ASSERT_EQ(roctracer_activity_push_external_correlation_id(8), ROCTRACER_STATUS_SUCCESS);
  roctxMarkA("b");
  activity_correlation_id_t popped = 0;
  ASSERT_EQ(roctracer_activity_pop_external_correlation_id(&popped), ROCTRACER_STATUS_SUCCESS);
  EXPECT_EQ(popped, 8U);
  roctxMarkA("c");
  ASSERT_EQ(roctracer_activity_pop_external_correlation_id(&popped), ROCTRACER_STATUS_SUCCESS);
  EXPECT_EQ(popped, 7U);
  roctxMarkA("d");
  ASSERT_EQ(roctracer_flush_activity_expl(pool), ROCTRACER_STATUS_SUCCESS);

  const auto records = collector.records();
  ASSERT_EQ(records.size(), 7U);
  const uint64_t expected_external[] = {7, 8, 7};
  for (size_t i = 0; i < 3; ++i) {
    const activity_record_t& ext = records[2 * i].record;
    const activity_record_t& mark = records[2 * i + 1].record;
    EXPECT_EQ(ext.domain, static_cast<uint32_t>(ACTIVITY_DOMAIN_EXT_API));
    EXPECT_EQ(ext.op, static_cast<uint32_t>(ACTIVITY_EXT_OP_EXTERN_ID));
    EXPECT_EQ(ext.external_id, expected_external[i]);
    EXPECT_EQ(ext.correlation_id, mark.correlation_id);
    EXPECT_EQ(mark.domain, static_cast<uint32_t>(ACTIVITY_DOMAIN_ROCTX));
  }
  EXPECT_EQ(records[6].record.domain, static_cast<uint32_t>(ACTIVITY_DOMAIN_ROCTX));
  EXPECT_EQ(records[6].message, "d");
}

// The MPI layer pushes and pops in place on the stack rocprof_mpi_thread_external_ids gives:
// records see those ids exactly as ids pushed through the API, and the two mix.
TEST_F(Activity, IdsPushedInPlaceAreTheApisIds) {
  RecordCollector collector;
  roctracer_pool_t* pool = open_pool(collector);
  ASSERT_EQ(roctracer_enable_op_activity_expl(ACTIVITY_DOMAIN_ROCTX, ROCTX_API_ID_roctxMarkA, pool),
            ROCTRACER_STATUS_SUCCESS);
  rocprof_mpi_external_id_stack_t* stack = rocprof_mpi_thread_external_ids();
  ASSERT_NE(stack, nullptr);
  EXPECT_EQ(stack, rocprof_mpi_thread_external_ids());  // the same for the thread's life
  EXPECT_EQ(stack->depth, 0U);
  stack->ids[stack->depth++] = 41;
  EXPECT_EQ(rocprof_mpi_current_external_id(), 41U);
  roctxMarkA("in place");
  ASSERT_EQ(roctracer_activity_push_external_correlation_id(42), ROCTRACER_STATUS_SUCCESS);
  EXPECT_EQ(stack->depth, 2U);
  EXPECT_EQ(stack->ids[1], 42U);
  activity_correlation_id_t popped = 0;
  ASSERT_EQ(roctracer_activity_pop_external_correlation_id(&popped), ROCTRACER_STATUS_SUCCESS);
  EXPECT_EQ(popped, 42U);
  --stack->depth;
  EXPECT_EQ(roctracer_activity_pop_external_correlation_id(&popped),
            ROCTRACER_STATUS_ERROR_MISMATCHED_EXTERNAL_CORRELATION_ID);
  // Another thread has a stack of its own.
  rocprof_mpi_external_id_stack_t* other = nullptr;
  std::thread([&] { other = rocprof_mpi_thread_external_ids(); }).join();
  EXPECT_NE(other, stack);
  ASSERT_EQ(roctracer_flush_activity_expl(pool), ROCTRACER_STATUS_SUCCESS);
  const auto records = collector.records();
  ASSERT_EQ(records.size(), 2U);
  EXPECT_EQ(records[0].record.domain, static_cast<uint32_t>(ACTIVITY_DOMAIN_EXT_API));
  EXPECT_EQ(records[0].record.external_id, 41U);
  EXPECT_EQ(records[1].message, "in place");
}

TEST_F(Activity, ExplicitPoolsReceiveOnlyTheirOps) {
  RecordCollector marks;
  RecordCollector ranges;
  roctracer_pool_t* mark_pool = open_pool(marks);
  roctracer_pool_t* range_pool = open_pool(ranges);
  EXPECT_EQ(roctracer_default_pool(), nullptr);
  roctracer_enable_op_activity_expl(ACTIVITY_DOMAIN_ROCTX, ROCTX_API_ID_roctxMarkA, mark_pool);
  roctracer_enable_op_activity_expl(ACTIVITY_DOMAIN_ROCTX, ROCTX_API_ID_roctxRangePushA,
                                    range_pool);
  roctracer_enable_op_activity_expl(ACTIVITY_DOMAIN_ROCTX, ROCTX_API_ID_roctxRangePop, range_pool);
  roctxMarkA("m1");
  roctxRangePushA("r");
  roctxRangePop();
  roctxMarkA("m2");
  roctracer_flush_activity_expl(mark_pool);
  roctracer_flush_activity_expl(range_pool);
  ASSERT_EQ(marks.records().size(), 2U);
  ASSERT_EQ(ranges.records().size(), 2U);
  EXPECT_EQ(marks.records()[1].message, "m2");
  EXPECT_EQ(ranges.records()[0].message, "r");
}

TEST_F(Activity, DefaultPoolRules) {
  RecordCollector first;
  RecordCollector second;
  roctracer_properties_t properties = first.properties();
  ASSERT_EQ(roctracer_open_pool(&properties), ROCTRACER_STATUS_SUCCESS);
  roctracer_pool_t* default_one = roctracer_default_pool();
  ASSERT_NE(default_one, nullptr);
  EXPECT_EQ(roctracer_open_pool(&properties), ROCTRACER_STATUS_ERROR_DEFAULT_POOL_ALREADY_DEFINED);
  EXPECT_NE(std::string(roctracer_error_string()), "");
  roctracer_pool_t* other = open_pool(second);
  EXPECT_EQ(roctracer_default_pool_expl(other), default_one);  // returns the previous default
  EXPECT_EQ(roctracer_default_pool(), other);
  roctracer_enable_op_activity(ACTIVITY_DOMAIN_ROCTX, ROCTX_API_ID_roctxMarkA);
  roctxMarkA("to the new default");
  roctracer_flush_activity();
  EXPECT_EQ(second.records().size(), 1U);
  EXPECT_EQ(first.records().size(), 0U);
  ASSERT_EQ(roctracer_close_pool_expl(default_one), ROCTRACER_STATUS_SUCCESS);
}

TEST_F(Activity, ClosingDeliversEverythingAndDisablesItsRoutes) {
  RecordCollector collector;
  roctracer_properties_t properties = collector.properties();
  roctracer_pool_t* pool = nullptr;
  ASSERT_EQ(roctracer_open_pool_expl(&properties, &pool), ROCTRACER_STATUS_SUCCESS);
  roctracer_enable_domain_activity_expl(ACTIVITY_DOMAIN_ROCTX, pool);
  for (int i = 0; i < 100; ++i) roctxMarkA("before close");
  ASSERT_EQ(roctracer_close_pool_expl(pool), ROCTRACER_STATUS_SUCCESS);
  EXPECT_EQ(collector.records().size(), 100U);
  roctxMarkA("after close");  // its route is gone: nothing recorded, nothing crashes
  EXPECT_EQ(collector.records().size(), 100U);
  EXPECT_EQ(roctracer_disable_op_activity(ACTIVITY_DOMAIN_ROCTX, ROCTX_API_ID_roctxMarkA),
            ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(roctracer_enable_op_activity_expl(ACTIVITY_DOMAIN_ROCTX, ROCTX_API_ID_roctxMarkA, pool),
            ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT);
}

TEST_F(Activity, ManyBuffersKeepEveryRecordInOrder) {
  RecordCollector collector;
  roctracer_pool_t* pool = open_pool(collector, 4096);
  roctracer_enable_op_activity_expl(ACTIVITY_DOMAIN_ROCTX, ROCTX_API_ID_roctxMarkA, pool);
  constexpr int kCount = 20000;
  for (int i = 0; i < kCount; ++i) roctxMarkA("x");
  roctracer_flush_activity_expl(pool);
  rocprof_mpi_pool_stats_t stats{};
  ASSERT_EQ(rocprof_mpi_pool_stats(pool, &stats), ROCTRACER_STATUS_SUCCESS);
  const auto records = collector.records();
  EXPECT_EQ(records.size() + stats.dropped_records, static_cast<size_t>(kCount));
  EXPECT_EQ(stats.delivered_records, records.size());
  EXPECT_GT(collector.buffers(), 10U);
  for (size_t i = 1; i < records.size(); ++i)
    ASSERT_LT(records[i - 1].record.correlation_id, records[i].record.correlation_id) << i;
}

TEST_F(Activity, RecordsOfAnExitedThreadAreDelivered) {
  RecordCollector collector;
  roctracer_pool_t* pool = open_pool(collector);
  roctracer_enable_op_activity_expl(ACTIVITY_DOMAIN_ROCTX, ROCTX_API_ID_roctxMarkA, pool);
  uint32_t worker_tid = 0;
  std::thread worker([&] {
    worker_tid = gettid_u32();
    for (int i = 0; i < 50; ++i) roctxMarkA("worker");
  });
  worker.join();
  roctracer_flush_activity_expl(pool);
  const auto records = collector.records();
  ASSERT_EQ(records.size(), 50U);
  for (const auto& r : records) EXPECT_EQ(r.record.thread_id, worker_tid);
}

TEST_F(Activity, BufferCallbackRunsOffTheTracedThread) {
  static std::atomic<bool> on_caller{false};
  static thread_local bool is_caller = false;
  roctracer_properties_t properties{};
  properties.buffer_size = 4096;
  properties.buffer_callback_fun = [](const char*, const char*, void*) {
    if (is_caller) on_caller = true;
  };
  roctracer_pool_t* pool = nullptr;
  ASSERT_EQ(roctracer_open_pool_expl(&properties, &pool), ROCTRACER_STATUS_SUCCESS);
  pools_.push_back(pool);
  roctracer_enable_op_activity_expl(ACTIVITY_DOMAIN_ROCTX, ROCTX_API_ID_roctxMarkA, pool);
  is_caller = true;
  for (int i = 0; i < 1000; ++i) roctxMarkA("x");
  roctracer_flush_activity_expl(pool);
  is_caller = false;
  EXPECT_FALSE(on_caller.load());
}

struct CountingAllocator {
  std::atomic<int> allocations{0}, frees{0};
  static void allocate(char** ptr, size_t size, void* arg) {
    auto* self = static_cast<CountingAllocator*>(arg);
    if (size == 0) {
      ++self->frees;
      std::free(*ptr);
      *ptr = nullptr;
    } else {
      ++self->allocations;
      *ptr = static_cast<char*>(std::realloc(*ptr, size));
    }
  }
};

TEST_F(Activity, CustomAllocatorOwnsEveryBuffer) {
  CountingAllocator allocator;
  RecordCollector collector;
  roctracer_properties_t properties = collector.properties();
  properties.alloc_fun = &CountingAllocator::allocate;
  properties.alloc_arg = &allocator;
  roctracer_pool_t* pool = nullptr;
  ASSERT_EQ(roctracer_open_pool_expl(&properties, &pool), ROCTRACER_STATUS_SUCCESS);
  roctracer_enable_op_activity_expl(ACTIVITY_DOMAIN_ROCTX, ROCTX_API_ID_roctxMarkA, pool);
  for (int i = 0; i < 1000; ++i) roctxMarkA("x");
  ASSERT_EQ(roctracer_close_pool_expl(pool), ROCTRACER_STATUS_SUCCESS);
  EXPECT_EQ(collector.records().size(), 1000U);
  EXPECT_GT(allocator.allocations.load(), 0);
  EXPECT_EQ(allocator.allocations.load(), allocator.frees.load());
}

TEST_F(Activity, SlowConsumerDropsAndCountsInsteadOfBlocking) {
  struct Slow {
    std::atomic<uint64_t> records{0};
    static void on_buffer(const char* begin, const char* end, void* arg) {
      static_cast<Slow*>(arg)->records += (end - begin) / sizeof(activity_record_t);
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  } slow;
  // 64 buffers of 4 KiB at most: the producer outruns that long before the consumer.
  // Only this thread touches the environment: the pool reads it in open, below.
  setenv("ROCPROF_POOL_MAX_BYTES", "262144", 1);  // NOLINT(concurrency-mt-unsafe)
  roctracer_properties_t properties{};
  properties.buffer_size = 4096;
  properties.buffer_callback_fun = &Slow::on_buffer;
  properties.buffer_callback_arg = &slow;
  roctracer_pool_t* pool = nullptr;
  ASSERT_EQ(roctracer_open_pool_expl(&properties, &pool), ROCTRACER_STATUS_SUCCESS);
  unsetenv("ROCPROF_POOL_MAX_BYTES");  // NOLINT(concurrency-mt-unsafe): as above
  pools_.push_back(pool);
  roctracer_enable_op_activity_expl(ACTIVITY_DOMAIN_ROCTX, ROCTX_API_ID_roctxMarkA, pool);
  constexpr uint64_t kCount = 200000;
  for (uint64_t i = 0; i < kCount; ++i) roctxMarkA("x");
  roctracer_flush_activity_expl(pool);
  rocprof_mpi_pool_stats_t stats{};
  ASSERT_EQ(rocprof_mpi_pool_stats(pool, &stats), ROCTRACER_STATUS_SUCCESS);
  EXPECT_GT(stats.dropped_records, 0U);
  EXPECT_EQ(stats.delivered_records, slow.records.load());
  EXPECT_EQ(stats.delivered_records + stats.dropped_records, kCount);
}

TEST_F(Activity, SlowChunkMakingDoesNotKeepThePoolThreadFromDelivering) {
  // Chunks that take long to make (memory touched for the first time on a busy node) while
  // a thread records flat out, taking each spare chunk as it comes: the pool thread used to
  // keep making chunks until the memory limit, delivering nothing, so that a flush (and the
  // file's first rows) waited seconds. It now tops the spares up once per round.
  constexpr std::size_t kMost = 1 << 14;
  struct SlowAllocator {
    std::atomic<std::size_t> made{0};
    std::array<std::uint32_t, kMost> maker{};  // thread id of each allocation, in order
    static void allocate(char** ptr, size_t size, void* arg) {
      auto* self = static_cast<SlowAllocator*>(arg);
      if (size == 0) {
        std::free(*ptr);
        *ptr = nullptr;
        return;
      }
      const std::size_t index = self->made.fetch_add(1);
      if (index < self->maker.size()) self->maker[index] = gettid_u32();
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      *ptr = static_cast<char*>(std::realloc(*ptr, size));
    }
  } allocator;
  struct Deliveries {
    SlowAllocator* allocator = nullptr;
    std::atomic<std::uint32_t> thread{0};
    std::vector<std::size_t> made_at;  // chunks made so far, at each delivery
    static void on_buffer(const char* /*begin*/, const char* /*end*/, void* arg) {
      auto* self = static_cast<Deliveries*>(arg);
      self->thread.store(gettid_u32());
      self->made_at.push_back(self->allocator->made.load());
    }
  } deliveries;
  deliveries.allocator = &allocator;
  deliveries.made_at.reserve(1 << 16);
  setenv("ROCPROF_POOL_MAX_BYTES", "8M", 1);  // NOLINT(concurrency-mt-unsafe): this thread only
  roctracer_properties_t properties{};
  properties.buffer_size = 4096;
  properties.buffer_callback_fun = &Deliveries::on_buffer;
  properties.buffer_callback_arg = &deliveries;
  properties.alloc_fun = &SlowAllocator::allocate;
  properties.alloc_arg = &allocator;
  roctracer_pool_t* pool = nullptr;
  ASSERT_EQ(roctracer_open_pool_expl(&properties, &pool), ROCTRACER_STATUS_SUCCESS);
  unsetenv("ROCPROF_POOL_MAX_BYTES");  // NOLINT(concurrency-mt-unsafe): as above
  pools_.push_back(pool);
  roctracer_enable_op_activity_expl(ACTIVITY_DOMAIN_ROCTX, ROCTX_API_ID_roctxMarkA, pool);
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
  while (std::chrono::steady_clock::now() < until)
    for (int i = 0; i < 64; ++i) roctxMarkA("x");
  const std::size_t made_while_recording = allocator.made.load();
  roctracer_flush_activity_expl(pool);
  ASSERT_FALSE(deliveries.made_at.empty());
  // The most chunks the pool thread made in a row without delivering, while the thread
  // recorded: one round's top-up (a few rounds' if the recording thread was not scheduled
  // between them), not every chunk it could make.
  std::vector<std::size_t> marks = deliveries.made_at;
  marks.push_back(made_while_recording);
  std::size_t longest = 0;
  std::size_t from = 0;
  for (const std::size_t mark : marks) {
    std::size_t in_a_row = 0;
    for (std::size_t k = from; k < std::min(mark, kMost); ++k)
      if (allocator.maker[k] == deliveries.thread.load()) ++in_a_row;
    longest = std::max(longest, in_a_row);
    from = std::max(from, mark);
  }
  EXPECT_LE(longest, 24U) << "of " << made_while_recording << " chunks made while recording";
}

TEST_F(Activity, StoppedTracerRecordsNothing) {
  RecordCollector collector;
  roctracer_pool_t* pool = open_pool(collector);
  roctracer_enable_domain_activity_expl(ACTIVITY_DOMAIN_ROCTX, pool);
  roctracer_stop();
  roctxMarkA("hidden");
  roctracer_start();
  roctxMarkA("seen");
  roctracer_flush_activity_expl(pool);
  ASSERT_EQ(collector.records().size(), 1U);
  EXPECT_EQ(collector.records()[0].message, "seen");
}

TEST_F(Activity, LongMessagesAreTruncatedNotOverflowed) {
  RecordCollector collector;
  roctracer_pool_t* pool = open_pool(collector);
  roctracer_enable_domain_activity_expl(ACTIVITY_DOMAIN_ROCTX, pool);
  const std::string longer(5000, 'q');
  roctxMarkA(longer.c_str());
  roctxMarkA("short");
  roctracer_flush_activity_expl(pool);
  const auto records = collector.records();
  ASSERT_EQ(records.size(), 2U);
  EXPECT_EQ(records[0].message, std::string(1023, 'q'));
  EXPECT_EQ(records[1].message, "short");
}

TEST_F(Activity, TinyBufferSizeIsRoundedUpAndWorks) {
  RecordCollector collector;
  roctracer_pool_t* pool = open_pool(collector, 12);  // the size the reference sample uses
  roctracer_enable_domain_activity_expl(ACTIVITY_DOMAIN_ROCTX, pool);
  for (int i = 0; i < 500; ++i) roctxMarkA("tiny");
  roctracer_flush_activity_expl(pool);
  EXPECT_EQ(collector.records().size(), 500U);
}

TEST_F(Activity, ForkedChildThatRecordsAndExitsDoesNotHang) {
  RecordCollector collector;
  roctracer_pool_t* pool = open_pool(collector);
  roctracer_enable_domain_activity_expl(ACTIVITY_DOMAIN_ROCTX, pool);
  roctxMarkA("parent");
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    for (int i = 0; i < 10000; ++i) roctxMarkA("child");
    // Runs the library's exit flush: must not wait for the parent's pool thread. The forked
    // child has this one thread.
    std::exit(7);  // NOLINT(concurrency-mt-unsafe)
  }
  int status = 0;
  for (int waited_ms = 0; waited_ms < 10000; waited_ms += 10) {
    if (waitpid(child, &status, WNOHANG) == child) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (waitpid(child, &status, WNOHANG) == 0) kill(child, SIGKILL);
  ASSERT_TRUE(WIFEXITED(status)) << "child hung or crashed";
  EXPECT_EQ(WEXITSTATUS(status), 7);
  roctracer_flush_activity_expl(pool);
  ASSERT_EQ(collector.records().size(), 1U);  // the parent's own record only
}

}  // namespace

namespace {

// After fork the child's records must carry the child's own process and thread ids.
TEST_F(Activity, ForkedChildRecordsCarryItsOwnIds) {
  // A callback makes this thread known to the tracer (its ids cached) before forking.
  ASSERT_EQ(roctracer_enable_op_callback(
                ACTIVITY_DOMAIN_ROCTX, ROCTX_API_ID_roctxMarkA,
                [](uint32_t, uint32_t, const void*, void*) {}, nullptr),
            ROCTRACER_STATUS_SUCCESS);
  roctxMarkA("parent");
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    RecordCollector collector;
    roctracer_properties_t properties = collector.properties();
    roctracer_pool_t* pool = nullptr;
    if (roctracer_open_pool_expl(&properties, &pool) != ROCTRACER_STATUS_SUCCESS) std::_Exit(2);
    roctracer_enable_op_activity_expl(ACTIVITY_DOMAIN_ROCTX, ROCTX_API_ID_roctxMarkA, pool);
    roctxMarkA("in child");
    roctracer_close_pool_expl(pool);
    const auto records = collector.records();
    const bool ok = records.size() == 1 &&
                    records[0].record.process_id == static_cast<uint32_t>(getpid()) &&
                    records[0].record.thread_id == gettid_u32();
    std::_Exit(ok ? 0 : 3);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "2: pool failed to open, 3: wrong ids or count";
}

}  // namespace
