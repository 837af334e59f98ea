// Everything the tracer keeps per application thread. Only the owning thread writes it,
// except `busy`, which pool teardown reads to know when the thread left the hot path.
#pragma once

#include <rocprof-mpi/external_id.h>

#include "lib/core/message_cache.hpp"

#include <atomic>
#include <cstdint>

namespace rocprof::core {

class ProducerSlot;

inline constexpr std::uint32_t kMaxPools = 64;
inline constexpr std::uint32_t kRangeDepth = 256;

struct ThreadState {
  // 1 while the thread is between reading an activity route and finishing its write.
  std::atomic<std::uint32_t> busy{0};
  std::uint32_t tid = 0;  // Linux thread id
  std::uint32_t pid = 0;  // process id (both refreshed in a forked child)
  // Set on pool threads: they deliver buffers and never record (no recursion, no deadlock).
  bool is_pool_thread = false;
  // Set while the application has tracing off for this thread (rocprofsys_user_stop_thread_
  // trace): its API calls, markers and private records (but those always recorded) are not.
  bool suspended = false;

  // Correlation ids come from a process-wide counter in blocks, so the common case is a
  // thread-local increment instead of a contended atomic.
  std::uint64_t next_correlation_id = 0;
  std::uint64_t correlation_block_end = 0;
  // The innermost traced API call in progress on this thread (0: none): device work the
  // runtime makes inside it (an HSA queue's doorbell) is tied to it.
  std::uint64_t current_api_call = 0;

  // Shared with the MPI layer, which pushes and pops in place (rocprof_mpi_thread_external_ids).
  rocprof_mpi_external_id_stack_t external{};

  // Correlation ids of open roctxRangePushA ranges, so the pop record carries the push's id.
  std::uint64_t range_ids[kRangeDepth];
  std::uint32_t range_depth = 0;  // may exceed kRangeDepth; deeper ids are not kept

  // The producer slot this thread uses for each open pool, valid while uid matches.
  struct PoolSlotRef {
    std::uint64_t pool_uid = 0;
    ProducerSlot* slot = nullptr;
  };
  PoolSlotRef pool_slots[kMaxPools];

  // ROC-TX texts this thread recorded, kept once (see MessageCache).
  MessageCache messages;
};

// The calling thread's state, created and registered on first use.
ThreadState& this_thread_state() noexcept;

// Next correlation id for the calling thread (unique in the process, increasing per thread).
std::uint64_t next_correlation_id(ThreadState& state) noexcept;

// Marks the calling thread as inside / outside the recording hot path. Entering costs a
// relaxed store plus a compiler fence when the kernel offers membarrier (the slow side pays
// for ordering), a full fence otherwise.
void enter_hot_path(ThreadState& state) noexcept;
inline void leave_hot_path(ThreadState& state) noexcept {
  state.busy.store(0, std::memory_order_release);
}

// Returns once no thread is inside a hot-path section that began before the call. Callers
// first unpublish what they are about to free; threads entering later cannot see it.
// Takes the thread registry lock for its duration.
void wait_for_hot_path_quiescence();

}  // namespace rocprof::core
