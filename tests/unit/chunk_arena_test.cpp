// The pool's chunk memory: a chunk taken with `populate` is resident before anyone writes it
// (so the producer that fills it takes no page faults), one taken without is not.
#include "lib/core/chunk_arena.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

namespace {

// Pages of [memory, memory + bytes) that are resident now.
std::size_t resident_pages(const char* memory, std::size_t bytes) {
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const std::uintptr_t begin = reinterpret_cast<std::uintptr_t>(memory) & ~(page - 1);
  const std::size_t length = reinterpret_cast<std::uintptr_t>(memory) + bytes - begin;
  std::vector<unsigned char> state((length + page - 1) / page);
  if (mincore(reinterpret_cast<void*>(begin), length, state.data()) != 0) return 0;
  std::size_t resident = 0;
  for (const unsigned char s : state) resident += s & 1U;
  return resident;
}

constexpr std::size_t kChunk = std::size_t{1} << 20;

TEST(ChunkArena, PopulatedChunksAreResidentBeforeTheFirstWrite) {
  rocprof::core::ChunkArena arena;
  const std::size_t pages = kChunk / static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  for (int i = 0; i < 8; ++i) {
    char* chunk = arena.take(kChunk, true);
    ASSERT_NE(chunk, nullptr);
    EXPECT_EQ(resident_pages(chunk, kChunk), pages) << "chunk " << i;
  }
}

TEST(ChunkArena, OtherChunksAreFaultedInByTheirFirstWriter) {
  rocprof::core::ChunkArena arena;
  // Past the first mapping's huge pages that populated neighbours could have brought in.
  char* chunk = arena.take(kChunk, false);
  ASSERT_NE(chunk, nullptr);
  EXPECT_EQ(resident_pages(chunk, kChunk), 0U);
  chunk[0] = 1;
  EXPECT_GT(resident_pages(chunk, kChunk), 0U);
}

TEST(ChunkArena, ChunksAreAlignedAndDisjoint) {
  rocprof::core::ChunkArena arena;
  char* previous = nullptr;
  for (int i = 0; i < 100; ++i) {  // more than one mapping's worth
    char* chunk = arena.take(kChunk + 8, i % 2 == 0);
    ASSERT_NE(chunk, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(chunk) % 64, 0U);
    if (previous != nullptr && chunk > previous) EXPECT_GE(chunk - previous, kChunk + 8);
    previous = chunk;
  }
}

}  // namespace
