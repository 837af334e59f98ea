#include "lib/format/chunk_reader_pool.hpp"

#include <mutex>
#include <utility>
#include <vector>

namespace rocprof::format {
namespace {

// Idle readers kept: a merge uses a few at a time (two per table read, one per rank read
// ahead); more would only hold threads and buffers.
constexpr std::size_t kIdleKept = 8;

struct Pool {
  std::mutex mutex;
  std::vector<std::unique_ptr<ChunkReader>> idle;
};

Pool& pool() {
  // Never destroyed: readers given back by static destructors at exit find it alive, and
  // idle helper threads simply end with the process.
  static Pool* const instance = new Pool;  // NOLINT(cppcoreguidelines-owning-memory)
  return *instance;
}

}  // namespace

std::unique_ptr<ChunkReader> ChunkReaderPool::take() {
  Pool& p = pool();
  {
    const std::lock_guard lock(p.mutex);
    if (!p.idle.empty()) {
      std::unique_ptr<ChunkReader> reader = std::move(p.idle.back());
      p.idle.pop_back();
      return reader;
    }
  }
  return std::make_unique<ChunkReader>();
}

void ChunkReaderPool::give_back(std::unique_ptr<ChunkReader> reader) noexcept {
  if (!reader) return;
  Pool& p = pool();
  const std::lock_guard lock(p.mutex);
  if (p.idle.size() < kIdleKept) p.idle.push_back(std::move(reader));
  // else: destroyed on leaving, which joins its thread
}

}  // namespace rocprof::format
