// Memory for a pool's chunks, carved from large mappings backed by transparent huge pages
// where the kernel allows them. A burst that outruns the writer allocates chunks from many
// threads at once; taken from malloc, each 1 MiB chunk was a fresh mapping faulted in 4 KiB
// page by page, and the faults of all threads contend on the process's memory map. Here a
// 2 MiB page is faulted once, and mappings are made rarely. Chunks are recycled by the pool,
// never given back one by one: the mappings go when the pool does.
#pragma once

#include <cstddef>
#include <mutex>
#include <utility>
#include <vector>

namespace rocprof::core {

class ChunkArena {
 public:
  ChunkArena() = default;
  ~ChunkArena();
  ChunkArena(const ChunkArena&) = delete;
  ChunkArena& operator=(const ChunkArena&) = delete;

  // `bytes` of fresh memory, 64-byte aligned, or nullptr when no mapping can be made. Any
  // thread; a lock is taken (the slow path of chunk allocation only). `populate`: fault the
  // memory in now, so that the thread that writes it first does not (a producer's page
  // fault costs it microseconds and contends with every other thread's on the memory map).
  char* take(std::size_t bytes, bool populate) noexcept;

 private:
  char* carve(std::size_t bytes) noexcept;  // the next `bytes` of the current mapping

  std::mutex mutex_;
  std::vector<std::pair<void*, std::size_t>> mappings_;
  char* next_ = nullptr;
  char* end_ = nullptr;
};

}  // namespace rocprof::core
