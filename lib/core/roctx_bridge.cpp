#include "lib/core/roctx_bridge.hpp"

#include <dlfcn.h>

#include <mutex>

#include <roctracer/roctracer_roctx.h>

#include "lib/core/callback_table.hpp"
#include "lib/core/clock.hpp"
#include "lib/core/record_activity.hpp"
#include "lib/core/tracer_state.hpp"
#include "lib/core/tsc.hpp"
#include "lib/roctx/roctx_tracer_hook.h"

namespace rocprof::core {
namespace {

// The correlation id of a ROC-TX record names the range it belongs to: push and pop records
// of one range share it, as do start and stop records (the range id itself).
std::uint64_t correlation_for(ThreadState& state, std::uint32_t op, roctx_api_data_t& data,
                              std::uint32_t& level) {
  switch (op) {
    case ROCTX_API_ID_roctxRangePushA: {
      const std::uint64_t id = next_correlation_id(state);
      level = state.range_depth;
      if (state.range_depth < kRangeDepth) state.range_ids[state.range_depth] = id;
      ++state.range_depth;
      return id;
    }
    case ROCTX_API_ID_roctxRangePop: {
      if (state.range_depth == 0) return next_correlation_id(state);  // pushed before attach
      level = --state.range_depth;
      return level < kRangeDepth ? state.range_ids[level] : next_correlation_id(state);
    }
    case ROCTX_API_ID_roctxRangeStartA:
      data.args.id = next_correlation_id(state);
      return data.args.id;
    case ROCTX_API_ID_roctxRangeStop:
      return data.args.id;
    default:
      return next_correlation_id(state);
  }
}

int on_roctx_call(activity_domain_t domain, std::uint32_t op, void* opaque) {
  if (op >= ROCTX_API_ID_NUMBER || opaque == nullptr) return 0;
  auto& data = *static_cast<roctx_api_data_t*>(opaque);
  ThreadState& state = this_thread_state();
  std::uint32_t level = 0;
  // Ids are assigned even while stopped, so ranges that span a stop stay paired.
  const std::uint64_t correlation_id = correlation_for(state, op, data, level);
  if (!tracing_running() || state.suspended) return 0;
  if (const CallbackEntry* callback = callback_table().find(domain, op))
    callback->function(domain, op, &data, callback->arg);
  record_activity(state, ACTIVITY_DOMAIN_ROCTX, op, data.args.message,
                  [&](activity_record_t& record, const Pool& pool) {
                    record.kind = level;
                    record.correlation_id = correlation_id;
                    // The recorder converts ticks; roctracer clients get ns.
                    record.begin_ns = record.end_ns =
                        pool.markers_in_ticks() ? read_tsc() : now_ns();
                    record.process_id = state.pid;
                    record.thread_id = state.tid;
                  });
  return 0;
}

std::once_flag g_attach_once;

}  // namespace

void attach_roctx() {
  std::call_once(g_attach_once, [] {
    // Same soname as the application's copy, so this finds that copy when it is loaded.
    void* library = dlopen("libroctx64.so.4", RTLD_NOW | RTLD_GLOBAL);
    if (library == nullptr) return;
    auto register_hook = reinterpret_cast<roctx_register_tracer_callback_fn>(
        dlsym(library, ROCTX_TRACER_HOOK_SYMBOL));
    if (register_hook != nullptr) register_hook(on_roctx_call);
  });
}

}  // namespace rocprof::core
