// The roctracer documentation's sample flow against the simulated HIP 5.2 runtime: HIP API
// callbacks, HIP API activity and HIP ops activity into the default pool, ROC-TX ranges
// around it. Linked against Debian's libamdhip64.so.5 like any HIP program; run with the
// simulated one first in LD_LIBRARY_PATH (the test checks that it is the one loaded).
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <roctracer/roctracer.h>
#include <roctracer/roctracer_hip.h>
#include <roctracer/roctracer_roctx.h>
#include <roctracer/roctx.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "tests/sim/hip/hip_registration.hpp"

namespace {

// Host stubs standing for two kernels, registered under their mangled device names.
void stencil_stub() {}
void gate_stub() {}
constexpr const char* kStencil = "_Z7stencilPfi";
constexpr const char* kGate = "_Z4gatePf";

struct Callback {
  std::uint32_t cid;
  std::uint32_t phase;
  std::uint64_t correlation_id;
  std::uint64_t timestamp;
};

struct Record {
  std::uint32_t domain;
  std::uint32_t op;
  std::uint32_t kind;
  std::uint64_t correlation_id;
  std::uint64_t begin_ns;
  std::uint64_t end_ns;
  std::uint64_t bytes;
  std::string text;  // kernel name or ROC-TX message
};

std::mutex g_mutex;
std::vector<Callback> g_callbacks;
std::vector<Record> g_records;

void on_api(uint32_t /*domain*/, uint32_t cid, const void* data, void* /*arg*/) {
  const auto& call = *static_cast<const hip_api_data_t*>(data);
  roctracer_timestamp_t now = 0;
  roctracer_get_timestamp(&now);
  const std::lock_guard lock(g_mutex);
  g_callbacks.push_back({cid, call.phase, call.correlation_id, now});
}

void on_buffer(const char* begin, const char* end, void* /*arg*/) {
  const auto* record = reinterpret_cast<const roctracer_record_t*>(begin);
  const auto* last = reinterpret_cast<const roctracer_record_t*>(end);
  const std::lock_guard lock(g_mutex);
  while (record < last) {
    Record copy{record->domain,
                record->op,
                record->kind,
                record->correlation_id,
                record->begin_ns,
                record->end_ns,
                0,
                {}};
    if (record->domain == ACTIVITY_DOMAIN_HIP_OPS && record->op == HIP_OP_ID_DISPATCH &&
        record->kernel_name != nullptr)
      copy.text = record->kernel_name;
    if (record->domain == ACTIVITY_DOMAIN_HIP_OPS && record->op == HIP_OP_ID_COPY)
      copy.bytes = record->bytes;
    if (record->domain == ACTIVITY_DOMAIN_ROCTX && record->mark_message != nullptr)
      copy.text = record->mark_message;
    g_records.push_back(copy);
    roctracer_next_record(record, &record);
  }
}

#define CHECK_HIP(call) ASSERT_EQ((call), hipSuccess) << #call

class HipSampleFlow : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    void** modules = __hipRegisterFatBinary(nullptr);
    __hipRegisterFunction(modules, reinterpret_cast<const void*>(&stencil_stub),
                          const_cast<char*>(kStencil), kStencil, ~0U, nullptr, nullptr, nullptr,
                          nullptr, nullptr);
    __hipRegisterFunction(modules, reinterpret_cast<const void*>(&gate_stub),
                          const_cast<char*>(kGate), kGate, ~0U, nullptr, nullptr, nullptr, nullptr,
                          nullptr);
  }
};

TEST_F(HipSampleFlow, RunsAgainstTheSimulatedRuntime) {
  Dl_info where{};
  ASSERT_NE(dladdr(dlsym(RTLD_DEFAULT, "hipMalloc"), &where), 0);
  EXPECT_NE(std::strstr(where.dli_fname, "sim-hip"), nullptr)
      << "hipMalloc comes from " << where.dli_fname << ": put build/tests/sim-hip first in "
      << "LD_LIBRARY_PATH";
}

TEST_F(HipSampleFlow, CallbacksActivityAndOpsTellOneStory) {
  constexpr std::size_t kBytes = std::size_t{1} << 20;
  roctracer_properties_t properties{};
  properties.buffer_size = 1 << 20;
  properties.buffer_callback_fun = on_buffer;
  ASSERT_EQ(roctracer_open_pool(&properties), ROCTRACER_STATUS_SUCCESS);
  ASSERT_EQ(roctracer_enable_domain_callback(ACTIVITY_DOMAIN_HIP_API, on_api, nullptr),
            ROCTRACER_STATUS_SUCCESS);
  for (const auto domain :
       {ACTIVITY_DOMAIN_HIP_API, ACTIVITY_DOMAIN_HIP_OPS, ACTIVITY_DOMAIN_ROCTX})
    ASSERT_EQ(roctracer_enable_domain_activity(domain), ROCTRACER_STATUS_SUCCESS);

  std::vector<float> host(kBytes / sizeof(float), 1.5F);
  std::vector<float> back(host.size(), 0.0F);
  void* device = nullptr;
  hipStream_t stream = nullptr;
  roctxRangePushA("iteration");
  CHECK_HIP(hipMalloc(&device, kBytes));
  CHECK_HIP(hipStreamCreate(&stream));
  CHECK_HIP(hipMemcpy(device, host.data(), kBytes, hipMemcpyHostToDevice));
  void* args[] = {&device};
  CHECK_HIP(hipLaunchKernel(reinterpret_cast<const void*>(&stencil_stub), dim3(64), dim3(256), args,
                            0, stream));
  CHECK_HIP(hipLaunchKernel(reinterpret_cast<const void*>(&gate_stub), dim3(1), dim3(64), args, 0,
                            stream));
  CHECK_HIP(hipMemcpyAsync(back.data(), device, kBytes, hipMemcpyDeviceToHost, stream));
  CHECK_HIP(hipStreamSynchronize(stream));
  roctxRangePop();
  CHECK_HIP(hipStreamDestroy(stream));
  CHECK_HIP(hipFree(device));
  EXPECT_EQ(back, host) << "the simulated copies moved the data";

  ASSERT_EQ(roctracer_flush_activity(), ROCTRACER_STATUS_SUCCESS);
  for (const auto domain :
       {ACTIVITY_DOMAIN_HIP_API, ACTIVITY_DOMAIN_HIP_OPS, ACTIVITY_DOMAIN_ROCTX})
    roctracer_disable_domain_activity(domain);
  roctracer_disable_domain_callback(ACTIVITY_DOMAIN_HIP_API);
  roctracer_close_pool();

  const std::lock_guard lock(g_mutex);
  // Callbacks: each call's enter, then its exit, with one correlation id, in call order.
  const std::vector<std::uint32_t> calls = {HIP_API_ID_hipMalloc,
                                            HIP_API_ID_hipStreamCreate,
                                            HIP_API_ID_hipMemcpy,
                                            HIP_API_ID_hipLaunchKernel,
                                            HIP_API_ID_hipLaunchKernel,
                                            HIP_API_ID_hipMemcpyAsync,
                                            HIP_API_ID_hipStreamSynchronize,
                                            HIP_API_ID_hipStreamDestroy,
                                            HIP_API_ID_hipFree};
  ASSERT_EQ(g_callbacks.size(), 2 * calls.size());
  std::map<std::uint32_t, std::vector<std::uint64_t>> ids_of;  // cid -> correlation ids
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const Callback& enter = g_callbacks[2 * i];
    const Callback& exit = g_callbacks[2 * i + 1];
    EXPECT_EQ(enter.cid, calls[i]) << i;
    EXPECT_EQ(exit.cid, calls[i]) << i;
    EXPECT_EQ(enter.phase, ACTIVITY_API_PHASE_ENTER) << i;
    EXPECT_EQ(exit.phase, ACTIVITY_API_PHASE_EXIT) << i;
    EXPECT_EQ(enter.correlation_id, exit.correlation_id) << i;
    EXPECT_NE(enter.correlation_id, 0U) << i;
    if (i > 0) {
      EXPECT_GT(enter.correlation_id, g_callbacks[2 * i - 2].correlation_id);
    }
    ids_of[calls[i]].push_back(enter.correlation_id);
  }

  // API activity: a record per call with the callbacks' correlation id, timed between them.
  std::map<std::uint64_t, const Record*> api;
  std::vector<const Record*> ops;
  std::vector<const Record*> ranges;
  for (const Record& record : g_records) {
    if (record.domain == ACTIVITY_DOMAIN_HIP_API) api[record.correlation_id] = &record;
    if (record.domain == ACTIVITY_DOMAIN_HIP_OPS) ops.push_back(&record);
    if (record.domain == ACTIVITY_DOMAIN_ROCTX) ranges.push_back(&record);
  }
  ASSERT_EQ(api.size(), calls.size());
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const Callback& enter = g_callbacks[2 * i];
    const Callback& exit = g_callbacks[2 * i + 1];
    const auto found = api.find(enter.correlation_id);
    ASSERT_NE(found, api.end()) << i;
    EXPECT_EQ(found->second->op, calls[i]);
    EXPECT_LE(enter.timestamp, found->second->begin_ns) << i;
    EXPECT_LE(found->second->begin_ns, found->second->end_ns) << i;
    EXPECT_LE(found->second->end_ns, exit.timestamp) << i;
  }

  // HIP ops: two kernels named, two copies with their sizes, each tied to the call that
  // issued it and running after that call began.
  ASSERT_EQ(ops.size(), 4U);
  // Each device thread's records come in their own buffers: put the ops in time order.
  std::sort(ops.begin(), ops.end(),
            [](const Record* a, const Record* b) { return a->begin_ns < b->begin_ns; });
  std::vector<std::string> kernels;
  for (const Record* op : ops) {
    ASSERT_NE(api.count(op->correlation_id), 0U) << "op without its call";
    const Record& call = *api[op->correlation_id];
    EXPECT_GE(op->begin_ns, call.begin_ns);
    EXPECT_LE(op->begin_ns, op->end_ns);
    const std::string name = roctracer_op_string(ACTIVITY_DOMAIN_HIP_OPS, op->op, op->kind);
    if (op->op == HIP_OP_ID_DISPATCH) {
      EXPECT_EQ(call.op, HIP_API_ID_hipLaunchKernel);
      EXPECT_EQ(name, "KernelExecution");
      kernels.push_back(op->text);
    } else {
      EXPECT_EQ(op->bytes, kBytes);
      if (call.op == HIP_API_ID_hipMemcpy) {
        EXPECT_EQ(name, "CopyHostToDevice");
        EXPECT_LE(op->end_ns, call.end_ns) << "a blocking copy ends inside its call";
      } else {
        EXPECT_EQ(call.op, HIP_API_ID_hipMemcpyAsync);
        EXPECT_EQ(name, "CopyDeviceToHost");
      }
    }
  }
  EXPECT_EQ(kernels, (std::vector<std::string>{kStencil, kGate}));
  EXPECT_EQ(ops[0]->correlation_id, ids_of[HIP_API_ID_hipMemcpy][0]);
  EXPECT_EQ(ops[1]->correlation_id, ids_of[HIP_API_ID_hipLaunchKernel][0]);
  EXPECT_EQ(ops[2]->correlation_id, ids_of[HIP_API_ID_hipLaunchKernel][1]);
  EXPECT_EQ(ops[3]->correlation_id, ids_of[HIP_API_ID_hipMemcpyAsync][0]);

  // ROC-TX: the range's push and pop enclose every call made inside it.
  ASSERT_EQ(ranges.size(), 2U);
  EXPECT_EQ(ranges[0]->text, "iteration");
  const std::uint64_t pushed = ranges[0]->begin_ns;
  const std::uint64_t popped = ranges[1]->begin_ns;
  for (std::size_t i = 0; i < 7; ++i) {
    const Record& call = *api[g_callbacks[2 * i].correlation_id];
    EXPECT_LE(pushed, call.begin_ns) << i;
    EXPECT_LE(call.end_ns, popped) << i;
  }
}

}  // namespace
