// Which API callbacks are enabled, per domain and op; read on every traced call.
#pragma once

#include <atomic>
#include <cstdint>

#include <roctracer/roctracer.h>

#include "lib/core/domain_table.hpp"

namespace rocprof::core {

struct CallbackEntry {
  activity_rtapi_callback_t function;
  void* arg;
};

class CallbackTable {
 public:
  // Returns the callback for (domain, op) or nullptr. One acquire load: entries are
  // immutable once published, and retired entries are never freed (a thread may still be
  // calling one after it was disabled), so the pointer stays valid.
  const CallbackEntry* find(std::uint32_t domain, std::uint32_t op) const noexcept {
    return slots_[domain][op].load(std::memory_order_acquire);
  }

  // Set or clear one slot. Return false when clearing a slot that had no callback.
  bool enable(std::uint32_t domain, std::uint32_t op, activity_rtapi_callback_t function,
              void* arg);
  bool disable(std::uint32_t domain, std::uint32_t op);

 private:
  std::atomic<const CallbackEntry*> slots_[kDomainSlots][kMaxOpsPerDomain] = {};
};

CallbackTable& callback_table() noexcept;

}  // namespace rocprof::core
