// ROC-TX texts kept once per thread: hits give the same lasting copy, changed texts a new
// one, and past the thread's budget texts are left to be copied into records again.
#include "lib/core/message_cache.hpp"

#include <cstring>
#include <string>

#include <gtest/gtest.h>

namespace {

using rocprof::core::MessageCache;

TEST(MessageCache, SameTextSameCopyChangedTextNewCopy) {
  MessageCache cache;
  char buffer[32] = "iteration";
  const char* first = cache.lasting_copy(buffer, 1023);
  ASSERT_NE(first, nullptr);
  EXPECT_NE(first, buffer);
  EXPECT_EQ(cache.lasting_copy(buffer, 1023), first);
  std::strcpy(buffer, "it");  // shorter at the same address
  const char* second = cache.lasting_copy(buffer, 1023);
  EXPECT_STREQ(second, "it");
  EXPECT_STREQ(first, "iteration");  // earlier copies never change
  EXPECT_STREQ(cache.lasting_copy("a text longer than the limit", 6), "a text");
}

TEST(MessageCache, TwoTextsMarkedInTurnBothStayWhateverTheirAddresses) {
  // Pairs of addresses 8 bytes apart up to 16 KiB: some share a set of the cache.
  static char texts[16 << 10];
  for (std::size_t i = 0; i + 8 < sizeof texts; i += 8) std::strcpy(texts + i, "text");
  MessageCache cache;
  for (std::size_t offset = 8; offset + 8 < sizeof texts; offset += 8) {
    const char* first = cache.lasting_copy(texts, 1023);
    const char* second = cache.lasting_copy(texts + offset, 1023);
    ASSERT_EQ(cache.lasting_copy(texts, 1023), first) << offset;
    ASSERT_EQ(cache.lasting_copy(texts + offset, 1023), second) << offset;
  }
}

TEST(MessageCache, PastTheThreadBudgetTextsAreNotKept) {
  MessageCache cache;
  const std::string filler(999, 'x');
  std::size_t kept = 0;
  bool refused = false;
  for (int i = 0; i < 200; ++i) {  // 200 distinct 1000-byte texts: more than 64 KiB
    const std::string text = std::to_string(i) + filler;
    const char* copy = cache.lasting_copy(text.c_str(), 1023);
    refused = copy == nullptr;
    if (refused) break;
    ASSERT_EQ(std::string(copy), text.substr(0, 1023));
    kept += text.size() + 1;
  }
  EXPECT_TRUE(refused);
  EXPECT_LE(kept, MessageCache::kThreadBudgetBytes);
  EXPECT_GT(kept, MessageCache::kThreadBudgetBytes / 2);
}

}  // namespace
