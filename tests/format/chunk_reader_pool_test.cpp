// ChunkReaderPool: readers (a helper thread and its buffers) are reused from one holder to
// the next, a holder waits for its task before giving its reader back, and a task's error
// does not follow the reader to its next holder.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "lib/format/chunk_reader_pool.hpp"

namespace {

using rocprof::format::ChunkReader;
using rocprof::format::PooledChunkReader;

TEST(ChunkReaderPool, AReaderGivenBackServesTheNextHolderOnTheSameThread) {
  const ChunkReader* first = nullptr;
  std::thread::id first_thread;
  {
    const PooledChunkReader holder;
    first = &*holder;
    holder->worker.start([&] { first_thread = std::this_thread::get_id(); });
    holder->worker.wait();
  }
  const PooledChunkReader next;
  EXPECT_EQ(&*next, first);
  std::thread::id next_thread;
  next->worker.start([&] { next_thread = std::this_thread::get_id(); });
  next->worker.wait();
  EXPECT_EQ(next_thread, first_thread);
}

TEST(ChunkReaderPool, HoldersAtOnceGetDistinctReaders) {
  const PooledChunkReader a;
  const PooledChunkReader b;
  EXPECT_NE(&*a, &*b);
}

TEST(ChunkReaderPool, AHolderWaitsForItsTaskAndDropsItsError) {
  std::atomic<bool> finished{false};
  {
    const PooledChunkReader holder;
    holder->worker.start([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      finished = true;
      throw std::runtime_error("damaged");
    });
  }  // not waited for by its user: the holder waits
  EXPECT_TRUE(finished);
  const PooledChunkReader next;
  next->worker.start([] {});
  EXPECT_NO_THROW(next->worker.wait());  // the last holder's error stayed behind
}

}  // namespace
