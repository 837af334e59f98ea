// How a runtime backend reports one synchronous API call (HIP_API, HSA_API, HSA_EVT): enter
// and exit callbacks sharing a correlation id, and an activity record with the call's
// begin/end time when the op is routed to a pool. Backends fill the runtime's own callback
// data type (hip_api_data_t, hsa_api_data_t), which starts with correlation_id and phase.
#pragma once

#include <cstdint>

#include "lib/core/callback_table.hpp"
#include "lib/core/clock.hpp"
#include "lib/core/record_activity.hpp"
#include "lib/core/tracer_state.hpp"

namespace rocprof::core {

// State kept on the caller's stack between enter and exit.
struct ApiCallScope {
  std::uint32_t domain;
  std::uint32_t op;
  std::uint64_t correlation_id;
  std::uint64_t begin_ns;
  bool traced;
  std::uint64_t enclosing_call;  // the thread's current call before this one
};

// The innermost traced API call in progress on this thread, 0 when none.
inline std::uint64_t current_api_call() noexcept { return this_thread_state().current_api_call; }

// Whether a call of (domain, op) would be reported at all: a wrapper asks first, and calls
// straight through without filling its callback data when nothing observes the op.
inline bool api_observed(std::uint32_t domain, std::uint32_t op) noexcept {
  return tracing_running() &&
         (callback_table().find(domain, op) != nullptr || activity_route(domain, op) != nullptr);
}

// Call before the runtime function runs. `data` must have `correlation_id` and `phase`.
template <typename CallbackData>
ApiCallScope enter_api_call(std::uint32_t domain, std::uint32_t op, CallbackData& data) noexcept {
  ApiCallScope scope{domain, op, 0, 0, false, 0};
  if (!tracing_running()) return scope;
  const CallbackEntry* callback = callback_table().find(domain, op);
  const bool recorded = activity_route(domain, op) != nullptr;
  if (callback == nullptr && !recorded) return scope;
  ThreadState& state = this_thread_state();
  if (state.suspended) return scope;
  scope.traced = true;
  scope.correlation_id = next_correlation_id(state);
  scope.enclosing_call = state.current_api_call;
  state.current_api_call = scope.correlation_id;
  data.correlation_id = scope.correlation_id;
  data.phase = ACTIVITY_API_PHASE_ENTER;
  if (callback != nullptr) callback->function(domain, op, &data, callback->arg);
  scope.begin_ns = now_ns();
  return scope;
}

// Call after the runtime function returned (with its result already stored in `data`).
template <typename CallbackData>
void exit_api_call(const ApiCallScope& scope, CallbackData& data) noexcept {
  if (!scope.traced) return;
  const std::uint64_t end_ns = now_ns();
  ThreadState& state = this_thread_state();
  state.current_api_call = scope.enclosing_call;
  data.correlation_id = scope.correlation_id;
  data.phase = ACTIVITY_API_PHASE_EXIT;
  if (const CallbackEntry* callback = callback_table().find(scope.domain, scope.op))
    callback->function(scope.domain, scope.op, &data, callback->arg);
  record_activity(state, scope.domain, scope.op, nullptr, [&](activity_record_t& record, auto&) {
    record.correlation_id = scope.correlation_id;
    record.begin_ns = scope.begin_ns;
    record.end_ns = end_ns;
    record.process_id = state.pid;
    record.thread_id = state.tid;
  });
}

}  // namespace rocprof::core
