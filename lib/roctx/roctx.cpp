// libroctx64: ROC-TX markers and ranges. Without a tracer attached a call is a relaxed load
// and, for ranges, a thread-local counter update. At load it registers its API table with
// rocprofiler-register, so that a tool in the process (a rocprofiler_configure) is found
// without any environment variable.
#include <atomic>
#include <cstdint>

#include <rocprofiler-register/rocprofiler-register.h>
#include <roctracer/roctracer_roctx.h>
#include <roctracer/roctx.h>

#include "lib/roctx/roctx_tracer_hook.h"

namespace {

std::atomic<roctx_tracer_callback_t> g_tracer{nullptr};
// Range ids used while no tracer assigns them.
std::atomic<roctx_range_id_t> g_next_range_id{1};
__attribute__((tls_model("initial-exec"))) thread_local int tl_depth = 0;

// Acquire pairs with the release in registration: a tracer is fully set up before its hook
// can be called.
inline void notify(std::uint32_t op, roctx_api_data_t& data) {
  if (auto tracer = g_tracer.load(std::memory_order_acquire)) [[unlikely]]
    tracer(ACTIVITY_DOMAIN_ROCTX, op, &data);
}

}  // namespace

extern "C" {

ROCTX_API uint32_t roctx_version_major(void) { return ROCTX_VERSION_MAJOR; }
ROCTX_API uint32_t roctx_version_minor(void) { return ROCTX_VERSION_MINOR; }

ROCTX_API void roctxRegisterTracerCallback(roctx_tracer_callback_t callback) {
  g_tracer.store(callback, std::memory_order_release);
}

ROCTX_API void roctxMarkA(const char* message) {
  roctx_api_data_t data{};
  data.args.message = message;
  notify(ROCTX_API_ID_roctxMarkA, data);
}

ROCTX_API int roctxRangePushA(const char* message) {
  roctx_api_data_t data{};
  data.args.message = message;
  notify(ROCTX_API_ID_roctxRangePushA, data);
  return tl_depth++;
}

ROCTX_API int roctxRangePop(void) {
  if (tl_depth == 0) return -1;  // nothing open on this thread: nothing to tell a tracer
  roctx_api_data_t data{};
  notify(ROCTX_API_ID_roctxRangePop, data);
  return --tl_depth;
}

ROCTX_API roctx_range_id_t roctxRangeStartA(const char* message) {
  roctx_api_data_t data{};
  data.args.message = message;
  if (g_tracer.load(std::memory_order_relaxed) == nullptr)
    data.args.id = g_next_range_id.fetch_add(1, std::memory_order_relaxed);
  notify(ROCTX_API_ID_roctxRangeStartA, data);
  // A tracer attached between the check and the call leaves id 0; give it a real id.
  if (data.args.id == 0) data.args.id = g_next_range_id.fetch_add(1, std::memory_order_relaxed);
  return data.args.id;
}

ROCTX_API void roctxRangeStop(roctx_range_id_t id) {
  roctx_api_data_t data{};
  data.args.id = id;
  notify(ROCTX_API_ID_roctxRangeStop, data);
}

}  // extern "C"

// The ROC-TX API table handed to rocprofiler-register: its size, then the entry points.
ROCPROFILER_REGISTER_DEFINE_IMPORT(roctx,
                                   ROCPROFILER_REGISTER_COMPUTE_VERSION_2(ROCTX_VERSION_MAJOR,
                                                                          ROCTX_VERSION_MINOR))

namespace {

struct RoctxApiTable {
  std::uint64_t size;
  decltype(&roctxMarkA) mark;
  decltype(&roctxRangePushA) range_push;
  decltype(&roctxRangePop) range_pop;
  decltype(&roctxRangeStartA) range_start;
  decltype(&roctxRangeStop) range_stop;
};

RoctxApiTable api_table = {sizeof(RoctxApiTable), &roctxMarkA,       &roctxRangePushA,
                           &roctxRangePop,        &roctxRangeStartA, &roctxRangeStop};

__attribute__((constructor)) void register_api_table() {
  void* tables[] = {&api_table};
  rocprofiler_register_library_indentifier_t id{};
  rocprofiler_register_library_api_table(
      "roctx", &ROCPROFILER_REGISTER_IMPORT_FUNC(roctx),
      ROCPROFILER_REGISTER_COMPUTE_VERSION_2(ROCTX_VERSION_MAJOR, ROCTX_VERSION_MINOR), tables, 1,
      &id);
}

}  // namespace
