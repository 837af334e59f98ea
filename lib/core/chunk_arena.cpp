#include "lib/core/chunk_arena.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>

namespace rocprof::core {
namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kMappingBytes = std::size_t{64} << 20;
constexpr std::size_t kSmallPage = 4096;
#ifndef MADV_POPULATE_WRITE
constexpr int MADV_POPULATE_WRITE = 23;  // Linux 5.14; older kernels refuse it (EINVAL)
#endif

// Faults `bytes` at `memory` in as written memory. The arena's memory is never given back,
// so this is paid once per chunk.
void populate_memory(char* memory, std::size_t bytes) noexcept {
  if (madvise(memory, bytes, MADV_POPULATE_WRITE) == 0) return;
  // One write per page does the same where the kernel lacks the advice.
  for (std::size_t offset = 0; offset < bytes; offset += kSmallPage)
    reinterpret_cast<volatile char*>(memory)[offset] = 0;
}

}  // namespace

ChunkArena::~ChunkArena() {
  for (const auto& [address, bytes] : mappings_) munmap(address, bytes);
}

char* ChunkArena::take(std::size_t bytes, bool populate) noexcept {
  char* chunk = carve(bytes);
  // Outside the lock: other threads' chunks need not wait for these faults.
  if (chunk != nullptr && populate) populate_memory(chunk, bytes);
  return chunk;
}

char* ChunkArena::carve(std::size_t bytes) noexcept {
  constexpr std::size_t kAlignment = 64;  // the records' stride: every chunk starts aligned
  bytes = (bytes + kAlignment - 1) & ~(kAlignment - 1);
  const std::lock_guard lock(mutex_);
  if (next_ == nullptr || static_cast<std::size_t>(end_ - next_) < bytes) {
    // One huge page more than needed, so that the usable part starts on a huge page.
    const std::size_t wanted = std::max(kMappingBytes, bytes) + kHugePage;
    void* mapped = mmap(nullptr, wanted, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mapped == MAP_FAILED) return nullptr;
    try {
      mappings_.emplace_back(mapped, wanted);
    } catch (...) {
      munmap(mapped, wanted);
      return nullptr;
    }
    const auto start = reinterpret_cast<std::uintptr_t>(mapped);
    const std::uintptr_t aligned = (start + kHugePage - 1) & ~(kHugePage - 1);
    next_ = static_cast<char*>(mapped) + (aligned - start);
    end_ = static_cast<char*>(mapped) + wanted;
    // Advice only: without transparent huge pages the memory works the same, in small pages.
    madvise(next_, static_cast<std::size_t>(end_ - next_), MADV_HUGEPAGE);
  }
  char* chunk = next_;
  next_ += bytes;
  return chunk;
}

}  // namespace rocprof::core
