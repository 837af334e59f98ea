// Writing one activity record into the pools routed for it: the recording hot path shared by
// every event source (ROC-TX, the runtimes), and the thread's external-id stack it reads.
#pragma once

#include <cstdint>
#include <cstring>

#include <roctracer/roctracer_ext.h>

#include "lib/core/activity_router.hpp"
#include "lib/core/thread_state.hpp"

namespace rocprof::core {

// The thread's innermost external id, 0 when its stack is empty.
inline std::uint64_t innermost_external_id(const ThreadState& state) noexcept {
  return rocprof_mpi_external_id_top(&state.external);
}

// Records one activity of (domain, op) if a pool is routed for it: `fill(record)` then
// completes the record (so timestamps and copies cost nothing when nobody listens), and the
// record is written preceded by an EXT_API record carrying the thread's innermost external id
// when its stack is not empty. `message` (may be NULL) is copied next to the record and
// linked from mark_message. No lock, no system call, no allocation in the steady state; the
// record is dropped and counted when the pool is out of space.
// `fill(record, pool)` writes the record's fields, in place in `pool`'s chunk.
template <typename Fill>
inline void record_activity(ThreadState& state, std::uint32_t domain, std::uint32_t op,
                            const char* message, Fill&& fill) noexcept {
  if (state.is_pool_thread) [[unlikely]]
    return;
  enter_hot_path(state);
  if (Pool* pool = activity_route(domain, op)) {
    const std::uint32_t count = state.external.depth == 0 ? 1 : 2;
    // A text the thread recorded before is not copied again (MessageCache); a new one is
    // kept once, and only past the cache's budget copied into the record's chunk.
    const char* lasting = message == nullptr
                              ? nullptr
                              : state.messages.lasting_copy(message, Pool::kMaxMessageBytes - 1);
    const char* to_copy = lasting == nullptr ? message : nullptr;
    const std::size_t message_length =
        to_copy == nullptr ? 0 : strnlen(to_copy, Pool::kMaxMessageBytes - 1);
    const std::size_t message_bytes = to_copy == nullptr ? 0 : message_length + 1;
    Pool::Reservation space{};
    if (pool->reserve(state, count, message_bytes, space)) {
      // Written in place: no staging copy on the stack.
      activity_record_t& record = space.records[count - 1];
      record = activity_record_t{};
      record.domain = domain;
      record.op = op;
      fill(record, *pool);
      if (count == 2) {
        activity_record_t& external = space.records[0];
        external = activity_record_t{};
        external.domain = ACTIVITY_DOMAIN_EXT_API;
        external.op = ACTIVITY_EXT_OP_EXTERN_ID;
        external.correlation_id = record.correlation_id;
        external.external_id = innermost_external_id(state);
      }
      if (lasting != nullptr) {
        record.mark_message = lasting;
      } else if (to_copy != nullptr) {
        std::memcpy(space.message, to_copy, message_length);
        space.message[message_length] = '\0';
        record.mark_message = space.message;
      }
      Pool::publish(space);
    }
  }
  leave_hot_path(state);
}

}  // namespace rocprof::core
