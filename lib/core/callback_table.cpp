#include "lib/core/callback_table.hpp"

#include <memory>
#include <mutex>
#include <vector>

namespace rocprof::core {
namespace {
// Entries replaced or disabled stay here until exit: a traced call on another thread may
// have loaded the pointer just before it was swapped out.
std::mutex g_retired_mutex;
std::vector<std::unique_ptr<CallbackEntry>>& retired_entries() {
  static auto* entries = new std::vector<std::unique_ptr<CallbackEntry>>();
  return *entries;
}

void retire(const CallbackEntry* entry) {
  if (entry == nullptr) return;
  const std::lock_guard lock(g_retired_mutex);
  retired_entries().emplace_back(const_cast<CallbackEntry*>(entry));
}
}  // namespace

bool CallbackTable::enable(std::uint32_t domain, std::uint32_t op,
                           activity_rtapi_callback_t function, void* arg) {
  // A throw here (out of memory) is caught by the C shim and returned as a status.
  const auto* entry =
      new CallbackEntry{function, arg};  // NOLINT(bugprone-unhandled-exception-at-new)
  retire(slots_[domain][op].exchange(entry, std::memory_order_acq_rel));
  return true;
}

bool CallbackTable::disable(std::uint32_t domain, std::uint32_t op) {
  const CallbackEntry* old = slots_[domain][op].exchange(nullptr, std::memory_order_acq_rel);
  retire(old);
  return old != nullptr;
}

CallbackTable& callback_table() noexcept {
  // Never destroyed: runtimes may still call in from their own exit handlers.
  // Lazily built on first use (a 16 KiB table of null slots); failing to allocate it at
  // start-up is not recoverable in any useful way.
  static auto* table = new CallbackTable();  // NOLINT(bugprone-unhandled-exception-at-new)
  return *table;
}

}  // namespace rocprof::core
