// The open ranges of a pass over markers: the same answers as an ordered map, whether few are
// open at once (searched from the newest) or many (a hash map then takes them).
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <utility>

#include "merge/events/open_ranges.hpp"

namespace rocprof::merge {
namespace {

using Key = OpenRanges<int>::Key;

// Opens and closes drawn at random over `keys` keys, checked against a std::map that does the
// same; returns the most open at once.
std::size_t compare_with_a_map(std::uint32_t keys, bool replace, unsigned seed) {
  std::mt19937 random(seed);
  OpenRanges<int> open;
  std::map<Key, int> expected;
  std::size_t most = 0;
  for (int step = 0; step < 20000; ++step) {
    const Key key{random() % 4, random() % keys};
    if (random() % 2 == 0) {
      open.open(key, step, replace);
      if (replace)
        expected[key] = step;
      else
        expected.try_emplace(key, step);
    } else {
      const std::optional<int> closed = open.close(key);
      const auto found = expected.find(key);
      EXPECT_EQ(closed.has_value(), found != expected.end()) << "step " << step;
      if (closed && found != expected.end()) {
        EXPECT_EQ(*closed, found->second) << "step " << step;
        expected.erase(found);
      }
    }
    EXPECT_EQ(open.size(), expected.size()) << "step " << step;
    most = std::max(most, expected.size());
  }
  return most;
}

TEST(OpenRanges, FewOpenAtOnceAnswerAsAMap) {
  for (const bool replace : {true, false})
    EXPECT_LE(compare_with_a_map(3, replace, 1), OpenRanges<int>::kFew);  // never spilled
}

TEST(OpenRanges, ManyOpenAtOnceAnswerAsAMap) {
  for (const bool replace : {true, false})
    EXPECT_GT(compare_with_a_map(400, replace, 2), OpenRanges<int>::kFew);  // spilled
}

TEST(OpenRanges, NestedRangesCloseNewestFirst) {
  OpenRanges<int> open;
  for (std::uint64_t level = 0; level < 3; ++level) open.open({7, level}, 10 + int(level), true);
  EXPECT_EQ(open.close({7, 2}), 12);
  EXPECT_EQ(open.close({7, 2}), std::nullopt);  // closed already
  open.open({7, 1}, 21, false);                 // kept: one is open under that key
  EXPECT_EQ(open.close({7, 1}), 11);
  open.open({7, 0}, 30, true);  // replaced
  EXPECT_EQ(open.close({7, 0}), 30);
  EXPECT_EQ(open.size(), 0U);
}

}  // namespace
}  // namespace rocprof::merge
