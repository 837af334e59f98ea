// weighted_block: the blocks of ranks the merge processes write, cut by the ranks' rows. Every
// rank exactly once, in order; no block empty while there are ranks enough (only the last
// ones otherwise); equal ranks cut as block_of cuts them; and uneven ranks cut nearer equal
// rows than equal counts do.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "merge/parallel/merge_group.hpp"

namespace {

using rocprof::merge::block_of;
using rocprof::merge::weighted_block;
using Blocks = std::vector<std::pair<std::size_t, std::size_t>>;

Blocks blocks(const std::vector<std::uint64_t>& weights, std::size_t processes) {
  Blocks all;
  for (std::size_t p = 0; p < processes; ++p) all.push_back(weighted_block(weights, p, processes));
  return all;
}

std::uint64_t heaviest(const std::vector<std::uint64_t>& weights, const Blocks& all) {
  std::uint64_t most = 0;
  for (const auto& [first, last] : all) {
    std::uint64_t sum = 0;
    for (std::size_t i = first; i < last; ++i) sum += weights[i];
    most = std::max(most, sum);
  }
  return most;
}

TEST(WeightedBlock, EveryRankOnceInOrderAndOnlyTheLastBlocksEmpty) {
  std::mt19937_64 random(7);
  for (const std::size_t count : {0, 1, 2, 3, 5, 16, 64, 1000})
    for (const std::size_t processes : {1, 2, 3, 4, 7, 16}) {
      std::vector<std::uint64_t> weights(count);
      for (auto& weight : weights) weight = random() % 4 == 0 ? 0 : random() % 100000;
      const Blocks all = blocks(weights, processes);
      SCOPED_TRACE(::testing::Message() << count << " ranks, " << processes << " processes");
      std::size_t next = 0;
      for (std::size_t p = 0; p < processes; ++p) {
        EXPECT_EQ(all[p].first, next);
        EXPECT_LE(all[p].first, all[p].second);
        const bool empty = all[p].first == all[p].second;
        EXPECT_EQ(empty, p >= count) << "block " << p;
        next = all[p].second;
      }
      EXPECT_EQ(next, count);
    }
}

TEST(WeightedBlock, EqualRanksAreCutAsBlockOfCutsThem) {
  for (const std::size_t count : {4, 64, 1024})
    for (const std::size_t processes : {2, 4, 16}) {
      const std::vector<std::uint64_t> weights(count, 10000);
      for (std::size_t p = 0; p < processes; ++p)
        EXPECT_EQ(weighted_block(weights, p, processes), block_of(count, p, processes))
            << count << " ranks, process " << p << " of " << processes;
    }
}

TEST(WeightedBlock, UnevenRanksAreCutByTheirRows) {
  // Four big ranks first, then twelve small ones: by count the first process gets all four.
  std::vector<std::uint64_t> weights(16, 1000);
  std::fill_n(weights.begin(), 4, 100000);
  EXPECT_EQ(weighted_block(weights, 0, 2), (std::pair<std::size_t, std::size_t>{0, 2}));
  EXPECT_EQ(weighted_block(weights, 1, 2), (std::pair<std::size_t, std::size_t>{2, 16}));
  // Rows growing with the rank: the heaviest block is lighter than with equal counts.
  std::vector<std::uint64_t> growing(256);
  for (std::size_t i = 0; i < growing.size(); ++i) growing[i] = 1000 + 100 * i;
  for (const std::size_t processes : {2, 3, 8}) {
    Blocks by_count;
    for (std::size_t p = 0; p < processes; ++p)
      by_count.push_back(block_of(growing.size(), p, processes));
    EXPECT_LT(heaviest(growing, blocks(growing, processes)), heaviest(growing, by_count));
  }
  // One rank outweighing the rest: it stays alone, the others share what is left.
  std::vector<std::uint64_t> one_big(10, 10);
  one_big[3] = 1000000;
  const Blocks three = blocks(one_big, 3);
  EXPECT_EQ(three[1], (std::pair<std::size_t, std::size_t>{3, 4}));
}

TEST(WeightedBlock, AFirstProcessWithOtherWorkTakesItsShareOfAnEqualShare) {
  // 64 equal ranks on 16 processes: 4 each; the first at half a share takes 2, the others
  // share the 62 left (4 or 5 each), every rank once and in order.
  const std::vector<std::uint64_t> weights(64, 1000);
  Blocks half;
  for (std::size_t p = 0; p < 16; ++p) half.push_back(weighted_block(weights, p, 16, 0.5));
  EXPECT_EQ(half[0], (std::pair<std::size_t, std::size_t>{0, 2}));
  std::size_t next = 2;
  for (std::size_t p = 1; p < 16; ++p) {
    EXPECT_EQ(half[p].first, next) << p;
    EXPECT_GE(half[p].second - half[p].first, 4U) << p;
    EXPECT_LE(half[p].second - half[p].first, 5U) << p;
    next = half[p].second;
  }
  EXPECT_EQ(next, 64U);
  // A share of 1 cuts as before; none leaves the first process one rank still.
  for (std::size_t p = 0; p < 16; ++p)
    EXPECT_EQ(weighted_block(weights, p, 16, 1.0), weighted_block(weights, p, 16));
  EXPECT_EQ(weighted_block(weights, 0, 16, 0.0), (std::pair<std::size_t, std::size_t>{0, 1}));
}

}  // namespace
