// HSA device work (HSA_OPS) against the simulated HSA runtime: a roctracer client whose HSA
// runtime loads libroctracer64 as a tool (HSA_TOOLS_LIB), dispatching a kernel through an AQL
// queue and copying with hsa_amd_memory_async_copy. The records are timed by the runtime
// (dispatch: GPU ticks, converted), tied to the API call that issued them, and the
// application's own completion signals still complete.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <roctracer/roctracer.h>
#include <roctracer/roctracer_hsa.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "tests/sim/hsa/hsa_work.hpp"

namespace {

using sim_hsa_work::dispatch;
using sim_hsa_work::find_agents;
using sim_hsa_work::find_kernel;
using sim_hsa_work::Wanted;

std::mutex g_mutex;
std::vector<roctracer_record_t> g_records;
std::vector<std::string> g_kernel_names;  // of the HSA_OPS dispatches, in record order

void on_buffer(const char* begin, const char* end, void* /*arg*/) {
  const std::lock_guard lock(g_mutex);
  for (const auto* record = reinterpret_cast<const roctracer_record_t*>(begin);
       record < reinterpret_cast<const roctracer_record_t*>(end);) {
    g_records.push_back(*record);
    if (record->domain == ACTIVITY_DOMAIN_HSA_OPS && record->op == HSA_OP_ID_DISPATCH)
      g_kernel_names.emplace_back(record->kernel_name != nullptr ? record->kernel_name : "");
    roctracer_next_record(record, &record);
  }
}

std::uint64_t now() {
  roctracer_timestamp_t timestamp = 0;
  roctracer_get_timestamp(&timestamp);
  return timestamp;
}

TEST(HsaOps, DispatchesAndCopiesAreTimedAndTiedToTheirCalls) {
  ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
  hsa_agent_t agents[2] = {};
  hsa_iterate_agents(find_agents, agents);
  ASSERT_NE(agents[1].handle, 0U) << "no GPU: is the simulated HSA runtime first in "
                                     "LD_LIBRARY_PATH?";
  roctracer_properties_t properties{};
  properties.buffer_size = 1 << 16;
  properties.buffer_callback_fun = on_buffer;
  ASSERT_EQ(roctracer_open_pool(&properties), ROCTRACER_STATUS_SUCCESS);
  ASSERT_EQ(roctracer_enable_domain_activity(ACTIVITY_DOMAIN_HSA_OPS), ROCTRACER_STATUS_SUCCESS);
  ASSERT_EQ(
      roctracer_enable_op_activity(ACTIVITY_DOMAIN_HSA_API, HSA_API_ID_hsa_signal_store_screlease),
      ROCTRACER_STATUS_SUCCESS);
  ASSERT_EQ(
      roctracer_enable_op_activity(ACTIVITY_DOMAIN_HSA_API, HSA_API_ID_hsa_amd_memory_async_copy),
      ROCTRACER_STATUS_SUCCESS);

  // A code object with its kernels, loaded as a HIP runtime loads a module.
  const int file = open(TINY_CODE_OBJECT_A, O_RDONLY);
  ASSERT_GE(file, 0);
  hsa_code_object_reader_t reader{};
  hsa_executable_t executable{};
  ASSERT_EQ(hsa_code_object_reader_create_from_file(file, &reader), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                                      nullptr, &executable),
            HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_executable_load_agent_code_object(executable, agents[1], reader, nullptr, nullptr),
            HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_executable_freeze(executable, nullptr), HSA_STATUS_SUCCESS);
  Wanted stencil{"stencil", 0};
  hsa_executable_iterate_symbols(executable, find_kernel, &stencil);
  ASSERT_NE(stencil.object, 0U);

  hsa_queue_t* queue = nullptr;
  ASSERT_EQ(hsa_queue_create(agents[1], 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX,
                             UINT32_MAX, &queue),
            HSA_STATUS_SUCCESS);
  hsa_signal_t kernel_done{};
  ASSERT_EQ(hsa_signal_create(1, 0, nullptr, &kernel_done), HSA_STATUS_SUCCESS);
  const std::uint64_t before_dispatch = now();
  dispatch(queue, kernel_done, stencil.object);
  EXPECT_EQ(hsa_signal_wait_scacquire(kernel_done, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX,
                                      HSA_WAIT_STATE_BLOCKED),
            0)
      << "the application's completion signal completes";
  const std::uint64_t after_dispatch = now();

  constexpr std::size_t kBytes = std::size_t{1} << 20;
  std::vector<char> source(kBytes, 'x');
  std::vector<char> target(kBytes, 0);
  hsa_signal_t copy_done{};
  ASSERT_EQ(hsa_signal_create(1, 0, nullptr, &copy_done), HSA_STATUS_SUCCESS);
  const std::uint64_t before_copy = now();
  ASSERT_EQ(hsa_amd_memory_async_copy(target.data(), agents[1], source.data(), agents[0], kBytes, 0,
                                      nullptr, copy_done),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_signal_wait_scacquire(copy_done, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX,
                                      HSA_WAIT_STATE_BLOCKED),
            0);
  const std::uint64_t after_copy = now();
  EXPECT_EQ(target, source);

  // Not recorded any more: the work still completes, and leaves no record.
  roctracer_disable_domain_activity(ACTIVITY_DOMAIN_HSA_OPS);
  hsa_signal_store_screlease(kernel_done, 1);
  dispatch(queue, kernel_done, stencil.object);
  EXPECT_EQ(hsa_signal_wait_scacquire(kernel_done, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX,
                                      HSA_WAIT_STATE_BLOCKED),
            0);
  roctracer_flush_activity();
  roctracer_disable_domain_activity(ACTIVITY_DOMAIN_HSA_API);
  roctracer_close_pool();

  const std::lock_guard lock(g_mutex);
  std::vector<roctracer_record_t> dispatches;
  std::vector<roctracer_record_t> copies;
  std::vector<roctracer_record_t> doorbells;
  std::vector<roctracer_record_t> copy_calls;
  for (const roctracer_record_t& record : g_records) {
    if (record.domain == ACTIVITY_DOMAIN_HSA_OPS && record.op == HSA_OP_ID_DISPATCH)
      dispatches.push_back(record);
    if (record.domain == ACTIVITY_DOMAIN_HSA_OPS && record.op == HSA_OP_ID_COPY)
      copies.push_back(record);
    if (record.domain == ACTIVITY_DOMAIN_HSA_API &&
        record.op == HSA_API_ID_hsa_signal_store_screlease && record.begin_ns >= before_dispatch &&
        record.end_ns <= after_dispatch)
      doorbells.push_back(record);
    if (record.domain == ACTIVITY_DOMAIN_HSA_API &&
        record.op == HSA_API_ID_hsa_amd_memory_async_copy)
      copy_calls.push_back(record);
  }
  ASSERT_EQ(dispatches.size(), 1U);
  const roctracer_record_t& kernel = dispatches[0];
  // On the host clock, inside the submission's window, as long as the simulated kernel
  // (50 us): the runtime's GPU ticks were converted.
  EXPECT_GE(kernel.begin_ns, before_dispatch);
  EXPECT_LE(kernel.end_ns, after_dispatch);
  EXPECT_GE(kernel.end_ns - kernel.begin_ns, 40'000U);
  EXPECT_EQ(kernel.queue_id, queue->id);
  EXPECT_EQ(g_kernel_names, std::vector<std::string>{"stencil"}) << "named by its code object";
  ASSERT_EQ(doorbells.size(), 1U);
  EXPECT_EQ(kernel.correlation_id, doorbells[0].correlation_id) << "tied to the doorbell call";
  EXPECT_NE(kernel.correlation_id, 0U);

  ASSERT_EQ(copies.size(), 1U);
  EXPECT_EQ(copies[0].bytes, kBytes);
  EXPECT_GE(copies[0].begin_ns, before_copy);
  EXPECT_LE(copies[0].end_ns, after_copy);
  EXPECT_LT(copies[0].begin_ns, copies[0].end_ns);
  ASSERT_EQ(copy_calls.size(), 1U);
  EXPECT_EQ(copies[0].correlation_id, copy_calls[0].correlation_id);

  hsa_signal_destroy(kernel_done);
  hsa_signal_destroy(copy_done);
  hsa_queue_destroy(queue);
  hsa_executable_destroy(executable);
  hsa_code_object_reader_destroy(reader);
  close(file);
  hsa_shut_down();
}

}  // namespace
