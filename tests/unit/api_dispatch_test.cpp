// The path a runtime backend uses to report API calls, driven by a simulated HIP runtime:
// real HIP 5.2 callback data (hip_api_data_t from hip_prof_str.h) and op ids, no device.
// Checks enter/exit callbacks with one correlation id, HIP_API activity records with the
// call's begin/end, and the external-id record in front of them.
#include <cstdlib>

#include <roctracer/roctracer_hip.h>

#include "lib/core/api_dispatch.hpp"
#include "tests/unit/tracer_fixture.hpp"

namespace {

using rocprof::test::RecordCollector;
using rocprof::test::TracerTest;

// A simulated hipMalloc as a HIP 5.2 runtime built with tracing support would run it.
hipError_t simulated_hipMalloc(void** ptr, size_t size) {
  // hip_api_data_t has non-trivial members in C++ (dim3), so it lives in raw storage.
  alignas(hip_api_data_t) unsigned char storage[sizeof(hip_api_data_t)] = {};
  auto& data = *reinterpret_cast<hip_api_data_t*>(storage);
  data.args.hipMalloc.ptr = ptr;
  data.args.hipMalloc.size = size;
  const auto scope =
      rocprof::core::enter_api_call(ACTIVITY_DOMAIN_HIP_API, HIP_API_ID_hipMalloc, data);
  *ptr = std::malloc(size);
  rocprof::core::exit_api_call(scope, data);
  return hipSuccess;
}

struct Phase {
  uint32_t op;
  uint32_t phase;
  uint64_t correlation_id;
  size_t size;
};

void record_phase(uint32_t /*domain*/, uint32_t op, const void* data, void* arg) {
  const auto* hip = static_cast<const hip_api_data_t*>(data);
  static_cast<std::vector<Phase>*>(arg)->push_back(
      {op, hip->phase, hip->correlation_id, hip->args.hipMalloc.size});
}

class ApiDispatch : public TracerTest {};

TEST_F(ApiDispatch, EnterAndExitCallbacksShareOneCorrelationId) {
  std::vector<Phase> phases;
  ASSERT_EQ(roctracer_enable_op_callback(ACTIVITY_DOMAIN_HIP_API, HIP_API_ID_hipMalloc,
                                         record_phase, &phases),
            ROCTRACER_STATUS_SUCCESS);
  void* first = nullptr;
  void* second = nullptr;
  ASSERT_EQ(simulated_hipMalloc(&first, 128), hipSuccess);
  ASSERT_EQ(simulated_hipMalloc(&second, 256), hipSuccess);
  ASSERT_EQ(phases.size(), 4U);
  EXPECT_EQ(phases[0].phase, static_cast<uint32_t>(ACTIVITY_API_PHASE_ENTER));
  EXPECT_EQ(phases[1].phase, static_cast<uint32_t>(ACTIVITY_API_PHASE_EXIT));
  EXPECT_EQ(phases[0].correlation_id, phases[1].correlation_id);
  EXPECT_EQ(phases[2].correlation_id, phases[3].correlation_id);
  EXPECT_NE(phases[0].correlation_id, phases[2].correlation_id);
  EXPECT_EQ(phases[0].size, 128U);
  EXPECT_EQ(phases[3].size, 256U);
  EXPECT_EQ(phases[0].op, static_cast<uint32_t>(HIP_API_ID_hipMalloc));
  std::free(first);
  std::free(second);
}

TEST_F(ApiDispatch, ActivityRecordSpansTheCallAndFollowsItsExternalId) {
  RecordCollector collector;
  roctracer_pool_t* pool = open_pool(collector);
  std::vector<Phase> phases;
  roctracer_enable_op_callback(ACTIVITY_DOMAIN_HIP_API, HIP_API_ID_hipMalloc, record_phase,
                               &phases);
  ASSERT_EQ(roctracer_enable_domain_activity_expl(ACTIVITY_DOMAIN_HIP_API, pool),
            ROCTRACER_STATUS_SUCCESS);
  roctracer_timestamp_t before = 0;
  roctracer_timestamp_t after = 0;
  roctracer_get_timestamp(&before);
  roctracer_activity_push_external_correlation_id(77);
  void* ptr = nullptr;
  ASSERT_EQ(simulated_hipMalloc(&ptr, 64), hipSuccess);
  roctracer_activity_pop_external_correlation_id(nullptr);
  roctracer_get_timestamp(&after);
  roctracer_flush_activity_expl(pool);
  const auto records = collector.records();
  ASSERT_EQ(records.size(), 2U);
  EXPECT_EQ(records[0].record.domain, static_cast<uint32_t>(ACTIVITY_DOMAIN_EXT_API));
  EXPECT_EQ(records[0].record.external_id, 77U);
  const activity_record_t& call = records[1].record;
  EXPECT_EQ(call.domain, static_cast<uint32_t>(ACTIVITY_DOMAIN_HIP_API));
  EXPECT_EQ(call.op, static_cast<uint32_t>(HIP_API_ID_hipMalloc));
  EXPECT_EQ(call.correlation_id, phases.at(0).correlation_id);
  EXPECT_EQ(records[0].record.correlation_id, call.correlation_id);
  EXPECT_LE(before, call.begin_ns);
  EXPECT_LE(call.begin_ns, call.end_ns);
  EXPECT_LE(call.end_ns, after);
  std::free(ptr);
}

TEST_F(ApiDispatch, NothingEnabledMeansNoCorrelationIdAndNoRecord) {
  RecordCollector collector;
  roctracer_pool_t* pool = open_pool(collector);
  roctracer_enable_op_activity_expl(ACTIVITY_DOMAIN_HIP_API, HIP_API_ID_hipFree, pool);
  alignas(hip_api_data_t) unsigned char storage[sizeof(hip_api_data_t)] = {};
  auto& data = *reinterpret_cast<hip_api_data_t*>(storage);
  const auto scope =
      rocprof::core::enter_api_call(ACTIVITY_DOMAIN_HIP_API, HIP_API_ID_hipMalloc, data);
  EXPECT_FALSE(scope.traced);
  EXPECT_EQ(data.correlation_id, 0U);
  rocprof::core::exit_api_call(scope, data);
  roctracer_flush_activity_expl(pool);
  EXPECT_TRUE(collector.records().empty());
}

}  // namespace
