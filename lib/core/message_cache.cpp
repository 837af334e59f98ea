#include "lib/core/message_cache.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace rocprof::core {
namespace {

std::atomic<std::size_t> g_process_bytes{0};

// One of the 64 entries, by a multiplicative hash of the address.
std::size_t slot_of(const char* message) noexcept {
  return (reinterpret_cast<std::uintptr_t>(message) >> 3) * 0x9E3779B97F4A7C15ULL >> 58;
}

}  // namespace

const char* MessageCache::lasting_copy(const char* message, std::size_t max_length) noexcept {
  // Two ways per set, the most recent first: two texts whose addresses share a set, marked
  // in turn, both stay.
  Entry* set = &entries_[slot_of(message) & ~std::size_t{1}];
  for (std::size_t way = 0; way < 2; ++way) {
    const Entry& entry = set[way];
    // strncmp stops at the first difference or NUL: it never reads past `message`'s end
    // even when the text at that address is now shorter than the copy.
    if (entry.source == message && entry.length <= max_length &&
        std::strncmp(message, entry.copy, entry.length + 1) == 0) {
      if (way == 1) std::swap(set[0], set[1]);
      return set[0].copy;
    }
  }
  const std::size_t length = strnlen(message, max_length);
  const char* copy = keep(message, length);
  if (copy != nullptr) {
    set[1] = set[0];
    set[0] = {message, copy, length};
  }
  return copy;
}

const char* MessageCache::keep(const char* message, std::size_t length) noexcept {
  const std::size_t bytes = length + 1;
  if (block_ == nullptr || block_used_ + bytes > kBlockBytes) {
    // A new block, while this thread and the process have budget left. Never freed: records
    // still waiting for delivery may point into it after the thread is gone.
    if (kept_bytes_ + kBlockBytes > kThreadBudgetBytes) return nullptr;
    if (g_process_bytes.fetch_add(kBlockBytes, std::memory_order_relaxed) + kBlockBytes >
        kProcessBudgetBytes) {
      g_process_bytes.fetch_sub(kBlockBytes, std::memory_order_relaxed);
      return nullptr;
    }
    block_ = static_cast<char*>(std::malloc(kBlockBytes));  // NOLINT(cppcoreguidelines-no-malloc)
    if (block_ == nullptr) return nullptr;
    block_used_ = 0;
    kept_bytes_ += kBlockBytes;
  }
  char* copy = block_ + block_used_;
  std::memcpy(copy, message, length);
  copy[length] = '\0';
  block_used_ += bytes;
  return copy;
}

}  // namespace rocprof::core
