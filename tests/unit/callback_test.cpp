// ROCTX-domain callbacks through the public API: enable per op, per domain, for all;
// disable; roctracer_start / roctracer_stop; callback data contents.
#include <atomic>
#include <thread>

#include "tests/unit/tracer_fixture.hpp"

namespace {

using rocprof::test::TracerTest;

struct Call {
  uint32_t domain;
  uint32_t op;
  std::string message;
  roctx_range_id_t id;
};

struct CallLog {
  std::mutex mutex;
  std::vector<Call> calls;
  static void on_call(uint32_t domain, uint32_t op, const void* data, void* arg) {
    auto* self = static_cast<CallLog*>(arg);
    const auto* roctx = static_cast<const roctx_api_data_t*>(data);
    const std::lock_guard lock(self->mutex);
    self->calls.push_back(
        {domain, op, roctx->args.message ? roctx->args.message : "<null>", roctx->args.id});
  }
};

class Callbacks : public TracerTest {};

TEST_F(Callbacks, OpCallbackSeesOnlyItsOpWithArguments) {
  CallLog log;
  ASSERT_EQ(roctracer_enable_op_callback(ACTIVITY_DOMAIN_ROCTX, ROCTX_API_ID_roctxMarkA,
                                         &CallLog::on_call, &log),
            ROCTRACER_STATUS_SUCCESS);
  roctxMarkA("hello");
  roctxRangePushA("ignored");
  roctxRangePop();
  ASSERT_EQ(log.calls.size(), 1U);
  EXPECT_EQ(log.calls[0].domain, static_cast<uint32_t>(ACTIVITY_DOMAIN_ROCTX));
  EXPECT_EQ(log.calls[0].op, static_cast<uint32_t>(ROCTX_API_ID_roctxMarkA));
  EXPECT_EQ(log.calls[0].message, "hello");
}

TEST_F(Callbacks, DomainCallbackSeesEveryRoctxCallInOrder) {
  CallLog log;
  ASSERT_EQ(roctracer_enable_domain_callback(ACTIVITY_DOMAIN_ROCTX, &CallLog::on_call, &log),
            ROCTRACER_STATUS_SUCCESS);
  roctxMarkA("m");
  EXPECT_EQ(roctxRangePushA("outer"), 0);
  EXPECT_EQ(roctxRangePushA("inner"), 1);
  EXPECT_EQ(roctxRangePop(), 1);
  EXPECT_EQ(roctxRangePop(), 0);
  const roctx_range_id_t id = roctxRangeStartA("async");
  roctxRangeStop(id);
  ASSERT_EQ(log.calls.size(), 7U);
  const uint32_t ops[] = {ROCTX_API_ID_roctxMarkA,      ROCTX_API_ID_roctxRangePushA,
                          ROCTX_API_ID_roctxRangePushA, ROCTX_API_ID_roctxRangePop,
                          ROCTX_API_ID_roctxRangePop,   ROCTX_API_ID_roctxRangeStartA,
                          ROCTX_API_ID_roctxRangeStop};
  for (size_t i = 0; i < 7; ++i) EXPECT_EQ(log.calls[i].op, ops[i]) << i;
  EXPECT_EQ(log.calls[1].message, "outer");
  EXPECT_EQ(log.calls[3].message, "<null>");
  // The start callback already sees the id the caller gets back; stop carries it too.
  EXPECT_EQ(log.calls[5].id, id);
  EXPECT_EQ(log.calls[6].id, id);
  EXPECT_NE(id, 0U);
}

TEST_F(Callbacks, EnableAllCoversRoctxAndDisableStopsDelivery) {
  CallLog log;
  ASSERT_EQ(roctracer_enable_callback(&CallLog::on_call, &log), ROCTRACER_STATUS_SUCCESS);
  roctxMarkA("one");
  ASSERT_EQ(roctracer_disable_callback(), ROCTRACER_STATUS_SUCCESS);
  roctxMarkA("two");
  ASSERT_EQ(log.calls.size(), 1U);
  EXPECT_EQ(log.calls[0].message, "one");
}

TEST_F(Callbacks, DisableOneOpKeepsTheOthers) {
  CallLog log;
  ASSERT_EQ(roctracer_enable_domain_callback(ACTIVITY_DOMAIN_ROCTX, &CallLog::on_call, &log),
            ROCTRACER_STATUS_SUCCESS);
  ASSERT_EQ(roctracer_disable_op_callback(ACTIVITY_DOMAIN_ROCTX, ROCTX_API_ID_roctxMarkA),
            ROCTRACER_STATUS_SUCCESS);
  roctxMarkA("gone");
  roctx_range_id_t id = roctxRangeStartA("kept");
  roctxRangeStop(id);
  ASSERT_EQ(log.calls.size(), 2U);
  EXPECT_EQ(log.calls[0].message, "kept");
  ASSERT_EQ(roctracer_disable_domain_callback(ACTIVITY_DOMAIN_ROCTX), ROCTRACER_STATUS_SUCCESS);
  roctxMarkA("gone too");
  EXPECT_EQ(log.calls.size(), 2U);
}

TEST_F(Callbacks, ReEnableReplacesCallbackArgument) {
  CallLog first;
  CallLog second;
  roctracer_enable_op_callback(ACTIVITY_DOMAIN_ROCTX, ROCTX_API_ID_roctxMarkA, &CallLog::on_call,
                               &first);
  roctracer_enable_op_callback(ACTIVITY_DOMAIN_ROCTX, ROCTX_API_ID_roctxMarkA, &CallLog::on_call,
                               &second);
  roctxMarkA("x");
  EXPECT_EQ(first.calls.size(), 0U);
  EXPECT_EQ(second.calls.size(), 1U);
}

TEST_F(Callbacks, StopAndStartGateDeliveryAndCallExtHooks) {
  static std::atomic<int> starts{0};
  static std::atomic<int> stops{0};
  roctracer_ext_properties_t hooks{[] { ++starts; }, [] { ++stops; }};
  ASSERT_EQ(roctracer_set_properties(ACTIVITY_DOMAIN_EXT_API, &hooks), ROCTRACER_STATUS_SUCCESS);
  CallLog log;
  roctracer_enable_domain_callback(ACTIVITY_DOMAIN_ROCTX, &CallLog::on_call, &log);
  roctracer_stop();
  roctxMarkA("while stopped");
  roctracer_start();
  roctxMarkA("after start");
  ASSERT_EQ(log.calls.size(), 1U);
  EXPECT_EQ(log.calls[0].message, "after start");
  EXPECT_EQ(starts.load(), 1);
  EXPECT_EQ(stops.load(), 1);
  roctracer_ext_properties_t none{};
  roctracer_set_properties(ACTIVITY_DOMAIN_EXT_API, &none);
}

TEST_F(Callbacks, CallbacksRunOnTheCallingThread) {
  static thread_local int marker = 0;
  struct Seen {
    std::atomic<int> on_caller{0}, total{0};
  } seen;
  roctracer_enable_op_callback(
      ACTIVITY_DOMAIN_ROCTX, ROCTX_API_ID_roctxMarkA,
      [](uint32_t, uint32_t, const void*, void* arg) {
        auto* s = static_cast<Seen*>(arg);
        ++s->total;
        if (marker == 42) ++s->on_caller;
      },
      &seen);
  std::thread worker([] {
    marker = 42;
    roctxMarkA("from worker");
  });
  worker.join();
  EXPECT_EQ(seen.total.load(), 1);
  EXPECT_EQ(seen.on_caller.load(), 1);
}

TEST_F(Callbacks, TimestampIsBoottime) {
  roctracer_timestamp_t before = 0;
  roctracer_timestamp_t after = 0;
  timespec ts{};
  ASSERT_EQ(roctracer_get_timestamp(&before), ROCTRACER_STATUS_SUCCESS);
  clock_gettime(CLOCK_BOOTTIME, &ts);
  ASSERT_EQ(roctracer_get_timestamp(&after), ROCTRACER_STATUS_SUCCESS);
  const uint64_t boottime = uint64_t(ts.tv_sec) * 1000000000ULL + uint64_t(ts.tv_nsec);
  EXPECT_LE(before, boottime);
  EXPECT_LE(boottime, after);
}

}  // namespace
