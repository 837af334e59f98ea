// The recording hot path shared by every event source (ROC-TX today, runtimes later).
#pragma once

#include <cstdint>

#include <roctracer/roctracer_ext.h>

#include "lib/core/activity_router.hpp"
#include "lib/core/thread_state.hpp"

namespace rocprof::core {

// Records one activity of (domain, op) if a pool is routed for it: `fill(record)` then
// completes the record (so timestamps and copies cost nothing when nobody listens), and the
// record is written preceded by an EXT_API record carrying the thread's innermost external id
// when its stack is not empty. `message` (may be NULL) is copied next to the record and
// linked from mark_message. No lock, no system call, no allocation in the steady state; the
// record is dropped and counted when the pool is out of space.
template <typename Fill>
inline void record_activity(ThreadState& state, std::uint32_t domain, std::uint32_t op,
                            const char* message, Fill&& fill) noexcept {
  if (state.is_pool_thread) [[unlikely]]
    return;
  enter_hot_path(state);
  if (Pool* pool = activity_route(domain, op)) {
    activity_record_t pair[2] = {};
    activity_record_t& record = pair[1];
    record.domain = domain;
    record.op = op;
    fill(record);
    if (state.external_depth == 0) {
      pool->write(state, &record, 1, message);
    } else {
      pair[0].domain = ACTIVITY_DOMAIN_EXT_API;
      pair[0].op = ACTIVITY_EXT_OP_EXTERN_ID;
      pair[0].correlation_id = record.correlation_id;
      pair[0].external_id = state.external_ids[state.external_depth - 1];
      pool->write(state, pair, 2, message);
    }
  }
  leave_hot_path(state);
}

// The calling thread's external-id stack.
inline bool push_external_id(ThreadState& state, std::uint64_t id) noexcept {
  if (state.external_depth == kExternalIdDepth) return false;
  state.external_ids[state.external_depth++] = id;
  return true;
}
inline bool pop_external_id(ThreadState& state, std::uint64_t* id) noexcept {
  if (state.external_depth == 0) return false;
  const std::uint64_t top = state.external_ids[--state.external_depth];
  if (id != nullptr) *id = top;
  return true;
}

}  // namespace rocprof::core
