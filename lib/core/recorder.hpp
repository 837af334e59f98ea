// The recording hot path shared by every event source (ROC-TX today, runtimes later).
#pragma once

#include <cstdint>

#include <roctracer/roctracer_ext.h>

#include "lib/core/activity_router.hpp"
#include "lib/core/thread_state.hpp"

namespace rocprof::core {

// Writes `record` into the pool its (domain, op) routes to, if any, preceded by an EXT_API
// record carrying the thread's innermost external id when its stack is not empty. `message`
// (may be NULL) is copied next to the record and linked from mark_message. No lock, no
// system call, no allocation; the record is dropped and counted when the pool is full.
inline void record_activity(ThreadState& state, const activity_record_t& record,
                            const char* message) noexcept {
  if (state.is_pool_thread) [[unlikely]]
    return;
  enter_hot_path(state);
  if (Pool* pool = activity_route(record.domain, record.op)) {
    if (state.external_depth == 0) {
      pool->write(state, &record, 1, message);
    } else {
      activity_record_t pair[2] = {};
      pair[0].domain = ACTIVITY_DOMAIN_EXT_API;
      pair[0].op = ACTIVITY_EXT_OP_EXTERN_ID;
      pair[0].correlation_id = record.correlation_id;
      pair[0].external_id = state.external_ids[state.external_depth - 1];
      pair[1] = record;
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
