// Helper threads for reading chunks ahead, with the buffers their reads reuse, kept from one
// use to the next: a merge of many small ranks reads thousands of small tables, and a new
// thread, decompression context and buffers for each cost more than reading one.
#pragma once

#include <memory>

#include "lib/format/background_worker.hpp"
#include "lib/format/rank_file_reader.hpp"

namespace rocprof::format {

struct ChunkReader {
  StoredChunk stored;
  ChunkDecodeBuffers buffers;
  BackgroundWorker worker;  // last: destroyed (and waited for) before what its task uses
};

// A process-wide pool of idle ChunkReaders. Thread-safe.
class ChunkReaderPool {
 public:
  // An idle reader, or a new one.
  static std::unique_ptr<ChunkReader> take();
  // Keeps it for the next take(), or destroys it when enough are idle already. Its task must
  // be over (PooledChunkReader waits for it).
  static void give_back(std::unique_ptr<ChunkReader> reader) noexcept;
};

// A ChunkReader taken from the pool for the holder's lifetime.
class PooledChunkReader {
 public:
  PooledChunkReader() : reader_(ChunkReaderPool::take()) {}
  ~PooledChunkReader() {
    // Its task may still use the reader through this holder: wait (dropping its error: the
    // owner reports errors when it waits) before letting go of it.
    if (reader_) reader_->worker.wait_quietly();
    ChunkReaderPool::give_back(std::move(reader_));
  }
  PooledChunkReader(const PooledChunkReader&) = delete;
  PooledChunkReader& operator=(const PooledChunkReader&) = delete;
  ChunkReader& operator*() const noexcept { return *reader_; }
  ChunkReader* operator->() const noexcept { return reader_.get(); }

 private:
  std::unique_ptr<ChunkReader> reader_;
};

}  // namespace rocprof::format
