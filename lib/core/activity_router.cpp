#include "lib/core/activity_router.hpp"

#include <algorithm>
#include <iterator>
#include <memory>
#include <mutex>

#include "lib/core/last_error.hpp"

namespace rocprof::core {
namespace {

struct Registry {
  std::mutex mutex;
  Pool* pools[kMaxPools] = {};
  Pool* default_pool = nullptr;
  std::uint64_t next_uid = 1;
  std::atomic<Pool*> routes[kDomainSlots][kMaxOpsPerDomain] = {};
};

Registry& registry() {
  static auto* instance = new Registry();  // never destroyed: pools are flushed at exit
  return *instance;
}

// Caller holds the mutex. Maps a user handle to a live pool.
Pool* find_pool(Registry& r, roctracer_pool_t* handle) {
  for (Pool* pool : r.pools)
    if (pool != nullptr && pool == handle) return pool;
  return nullptr;
}

}  // namespace

Pool* activity_route(std::uint32_t domain, std::uint32_t op) noexcept {
  return registry().routes[domain][op].load(std::memory_order_acquire);
}

roctracer_status_t open_pool(const roctracer_properties_t* properties, roctracer_pool_t** out) {
  if (properties == nullptr)
    return fail(ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "pool properties are NULL");
  if (properties->buffer_callback_fun == nullptr)
    return fail(ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT,
                "pool properties have no buffer_callback_fun");
  if (properties->buffer_size == 0 || properties->buffer_size > Pool::kMaxBufferSize)
    return fail(ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT,
                "pool buffer_size {} is outside 1 .. {} bytes", properties->buffer_size,
                Pool::kMaxBufferSize);
  std::size_t memory_limit = 0;
  if (std::string problem; !Pool::memory_limit_setting(memory_limit, problem))
    return fail(ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "{}", problem);
  auto& r = registry();
  const std::lock_guard lock(r.mutex);
  if (out == nullptr && r.default_pool != nullptr)
    return fail(ROCTRACER_STATUS_ERROR_DEFAULT_POOL_ALREADY_DEFINED,
                "a default pool is already open; close it or pass a pool pointer");
  std::uint32_t index = 0;
  while (index < kMaxPools && r.pools[index] != nullptr) ++index;
  if (index == kMaxPools)
    return fail(ROCTRACER_STATUS_ERROR_MEMORY_ALLOCATION, "too many open pools (limit {})",
                kMaxPools);
  roctracer_properties_t adjusted = *properties;
  // Tiny buffers would hold less than a record plus a message; round them up.
  adjusted.buffer_size = std::max(adjusted.buffer_size, Pool::kMinBufferSize);
  auto pool = std::make_unique<Pool>(adjusted, index, r.next_uid++, memory_limit);
  if (!pool->start())
    return fail(ROCTRACER_STATUS_ERROR_MEMORY_ALLOCATION, "cannot start the pool thread");
  r.pools[index] = pool.release();
  if (out == nullptr)
    r.default_pool = r.pools[index];
  else
    *out = r.pools[index];
  return ROCTRACER_STATUS_SUCCESS;
}

roctracer_status_t close_pool(roctracer_pool_t* handle) {
  auto& r = registry();
  std::unique_lock lock(r.mutex);
  Pool* pool = handle == nullptr ? r.default_pool : find_pool(r, handle);
  if (pool == nullptr) {
    if (handle == nullptr) return ROCTRACER_STATUS_SUCCESS;  // no default pool: nothing to do
    return fail(ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT,
                "pool {} is not open (closed twice, or never opened)", handle);
  }
  if (pool->on_pool_thread())
    return fail(ROCTRACER_STATUS_ERROR, "a pool cannot be closed from its own buffer callback");
  for (auto& domain_routes : r.routes)
    for (auto& route : domain_routes)
      if (route.load(std::memory_order_relaxed) == pool)
        route.store(nullptr, std::memory_order_seq_cst);
  // No thread can reach the pool through a route now; wait for those already inside.
  wait_for_hot_path_quiescence();
  pool->shutdown();
  r.pools[pool->index()] = nullptr;
  if (r.default_pool == pool) r.default_pool = nullptr;
  delete pool;
  return ROCTRACER_STATUS_SUCCESS;
}

roctracer_status_t flush_pool(roctracer_pool_t* handle) {
  auto& r = registry();
  Pool* pool = nullptr;
  {
    const std::lock_guard lock(r.mutex);
    pool = handle == nullptr ? r.default_pool : find_pool(r, handle);
    if (pool == nullptr) {
      if (handle == nullptr) return ROCTRACER_STATUS_SUCCESS;
      return fail(ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "pool {} is not open", handle);
    }
  }
  // Flushing outside the registry lock lets buffer callbacks use the API. A concurrent
  // close of the same pool is a user error the roctracer contract leaves undefined.
  pool->flush();
  return ROCTRACER_STATUS_SUCCESS;
}

roctracer_pool_t* default_pool(roctracer_pool_t* replacement, bool replace) {
  auto& r = registry();
  const std::lock_guard lock(r.mutex);
  Pool* previous = r.default_pool;
  if (replace && replacement != nullptr) {
    Pool* pool = find_pool(r, replacement);
    if (pool == nullptr) {
      fail(ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "pool {} is not open", replacement);
      return previous;
    }
    r.default_pool = pool;
  }
  return previous;
}

roctracer_status_t enable_activity(std::uint32_t domain, std::uint32_t first, std::uint32_t last,
                                   roctracer_pool_t* handle) {
  auto& r = registry();
  const std::lock_guard lock(r.mutex);
  Pool* pool = handle == nullptr ? r.default_pool : find_pool(r, handle);
  if (pool == nullptr) {
    if (handle == nullptr)
      return fail(ROCTRACER_STATUS_ERROR_DEFAULT_POOL_UNDEFINED,
                  "no pool given and no default pool is open");
    return fail(ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "pool {} is not open", handle);
  }
  for (std::uint32_t op = first; op <= last; ++op)
    if (is_valid_op(domain, op)) r.routes[domain][op].store(pool, std::memory_order_release);
  return ROCTRACER_STATUS_SUCCESS;
}

roctracer_status_t disable_activity(std::uint32_t domain, std::uint32_t first, std::uint32_t last,
                                    bool require_enabled) {
  auto& r = registry();
  const std::lock_guard lock(r.mutex);
  bool any = false;
  for (std::uint32_t op = first; op <= last; ++op)
    any |= r.routes[domain][op].exchange(nullptr, std::memory_order_relaxed) != nullptr;
  if (require_enabled && !any)
    return fail(ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "activity for {} op {} was not enabled",
                domain_name(domain), first);
  return ROCTRACER_STATUS_SUCCESS;
}

roctracer_status_t pool_counters(roctracer_pool_t* handle, PoolCounters* out) {
  if (out == nullptr) return fail(ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "output is NULL");
  auto& r = registry();
  const std::lock_guard lock(r.mutex);
  Pool* pool = handle == nullptr ? r.default_pool : find_pool(r, handle);
  if (pool == nullptr)
    return fail(ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "pool {} is not open", handle);
  *out = {pool->delivered_records(), pool->dropped_records()};
  return ROCTRACER_STATUS_SUCCESS;
}

void detach_thread_from_pools(ThreadState& state) {
  // Threads that never recorded (pool threads among them) must not take the lock: a pool
  // thread exits while close_pool holds it.
  bool has_slots = false;
  for (const auto& ref : state.pool_slots) has_slots |= ref.slot != nullptr;
  if (!has_slots) return;
  auto& r = registry();
  const std::lock_guard lock(r.mutex);  // keeps every pool we look at alive
  for (std::uint32_t index = 0; index < kMaxPools; ++index) {
    auto& ref = state.pool_slots[index];
    if (ref.slot == nullptr) continue;
    // A closed pool freed its slots: compare uids before touching the slot.
    Pool* pool = r.pools[index];
    if (pool != nullptr && pool->uid() == ref.pool_uid) pool->detach(ref.slot);
    ref = {};
  }
}

void flush_all_pools() noexcept {
  auto& r = registry();
  Pool* open[kMaxPools] = {};
  {
    const std::lock_guard lock(r.mutex);
    std::copy(std::begin(r.pools), std::end(r.pools), std::begin(open));
  }
  for (Pool* pool : open)
    if (pool != nullptr && !pool->on_pool_thread()) pool->flush();
}

}  // namespace rocprof::core
