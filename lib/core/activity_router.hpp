// Open pools, and which pool each (domain, op) records into.
#pragma once

#include <atomic>
#include <cstdint>

#include <roctracer/roctracer.h>

#include "lib/core/domain_table.hpp"
#include "lib/core/pool.hpp"
#include "lib/core/thread_state.hpp"

namespace rocprof::core {

// Pool route of (domain, op), or nullptr. Acquire: the pool was fully built before it was
// published. Only valid inside enter/leave_hot_path (pool teardown waits for that window).
Pool* activity_route(std::uint32_t domain, std::uint32_t op) noexcept;

// Management, all status-returning and thread-safe (serialised by one mutex).
roctracer_status_t open_pool(const roctracer_properties_t* properties, roctracer_pool_t** out);
roctracer_status_t close_pool(roctracer_pool_t* handle);
roctracer_status_t flush_pool(roctracer_pool_t* handle);
roctracer_pool_t* default_pool(roctracer_pool_t* replacement, bool replace);
// Route ops [first, last] of `domain` (only valid ops) to `pool` (NULL: default).
roctracer_status_t enable_activity(std::uint32_t domain, std::uint32_t first, std::uint32_t last,
                                   roctracer_pool_t* handle);
// Clear routes; with `require_enabled`, fails when the single op had no route.
roctracer_status_t disable_activity(std::uint32_t domain, std::uint32_t first, std::uint32_t last,
                                    bool require_enabled);

struct PoolCounters {
  std::uint64_t delivered;
  std::uint64_t dropped;
};
roctracer_status_t pool_counters(roctracer_pool_t* handle, PoolCounters* out);

// Thread exit: hands the thread's partly filled chunks to their pools.
void detach_thread_from_pools(ThreadState& state);
// Process exit: delivers what every open pool holds.
void flush_all_pools() noexcept;

}  // namespace rocprof::core
