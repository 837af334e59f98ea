// The analysis's edges past their memory: a process's edges in runs on a scratch file, taken
// a range of waiting ranks at a time, and the job's in order, read back in pieces and
// searched by the critical path, against the same edges held in memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "merge/analysis/job_edges.hpp"
#include "merge/analysis/waiting_rank_runs.hpp"
#include "merge/files/scratch_file.hpp"
#include "tests/tools/test_dir.hpp"

namespace fs = std::filesystem;
using rocprof::merge::JobEdges;
using rocprof::merge::ProcessEdges;
using rocprof::merge::ScratchFile;
using rocprof::merge::WaitEdge;
using rocprof::merge::WaitPattern;

namespace {

auto key(const WaitEdge& e) { return std::tie(e.waiting, e.from, e.to, e.awaited, e.cause); }

// Edges of `ranks` ranks in the order the first process appends them: by waiting rank and
// time. Waits of one rank overlap (threads) and many end at one time.
std::vector<WaitEdge> random_edges(std::uint32_t seed, std::int32_t ranks, std::size_t count) {
  std::mt19937_64 random(seed);
  std::vector<WaitEdge> edges(count);
  for (WaitEdge& edge : edges) {
    edge.waiting = static_cast<std::int32_t>(random() % static_cast<std::uint64_t>(ranks));
    edge.awaited = static_cast<std::int32_t>(random() % static_cast<std::uint64_t>(ranks));
    edge.from = random() % 100000;
    edge.to = edge.from + 1 + random() % 5000;
    if (random() % 4 == 0) edge.to = (edge.to / 1000 + 1) * 1000;  // ends at once
    edge.pattern = static_cast<WaitPattern>(random() % 3);
    edge.cause = static_cast<std::uint32_t>(random() % 7);
  }
  std::sort(edges.begin(), edges.end(),
            [](const WaitEdge& a, const WaitEdge& b) { return key(a) < key(b); });
  return edges;
}

// The latest wait of `rank` that ended before `t`, by looking at every edge: of several that
// ended at once, the last in the edges' order.
std::optional<JobEdges::Arrival> latest_by_hand(const std::vector<WaitEdge>& edges,
                                                std::int32_t rank, std::uint64_t t) {
  std::optional<JobEdges::Arrival> latest;
  for (const WaitEdge& edge : edges)
    if (edge.waiting == rank && edge.to < t && (!latest || edge.to >= latest->to))
      latest = JobEdges::Arrival{edge.to, edge.awaited, rank};
  return latest;
}

// `edges` appended to `into` a few ranks at a time.
void append_in_ranges(JobEdges& into, const std::vector<WaitEdge>& edges) {
  std::size_t begin = 0;
  while (begin < edges.size()) {
    std::size_t end = begin;
    const std::int32_t last = edges[begin].waiting + 2;
    while (end < edges.size() && edges[end].waiting <= last) ++end;
    into.append(std::span(edges).subspan(begin, end - begin));
    begin = end;
  }
}

}  // namespace

TEST(JobEdges, SpilledEdgesReadBackInOrderAndAnswerTheCriticalPathsSteps) {
  const fs::path dir = rocprof::test::fresh_test_dir("job_edges");
  for (const std::uint32_t seed : {1U, 2U, 3U}) {
    const std::vector<WaitEdge> edges = random_edges(seed, 9, 5000);
    JobEdges held;
    append_in_ranges(held, edges);
    // A memory of a few edges: hundreds of pieces on file, marks in every rank's ends.
    JobEdges spilled(std::make_shared<ScratchFile>(dir.string()), 7 * sizeof(WaitEdge));
    append_in_ranges(spilled, edges);
    EXPECT_FALSE(held.spilled());
    EXPECT_TRUE(spilled.spilled());
    for (const JobEdges* store : {&held, &spilled}) {
      ASSERT_EQ(store->size(), edges.size());
      const std::vector<WaitEdge> back = store->all();
      ASSERT_EQ(back.size(), edges.size());
      for (std::size_t i = 0; i < edges.size(); ++i)
        ASSERT_EQ(key(back[i]), key(edges[i])) << "seed " << seed << ", edge " << i;
      std::size_t largest_piece = 0;
      store->for_each_piece([&](std::span<const WaitEdge> piece) {
        largest_piece = std::max(largest_piece, piece.size());
      });
      EXPECT_LE(largest_piece, JobEdges::kPieceEdges);
      EXPECT_EQ(store->waiting_ranks().size(), 9U);
      // Steps at random times, then a walk's times going back (each rank's block read once).
      std::mt19937_64 random(seed);
      for (int step = 0; step < 3000; ++step) {
        const auto rank = static_cast<std::int32_t>(random() % 11);  // 9, 10: no waits
        const std::uint64_t t = random() % 110000;
        const auto expected = latest_by_hand(edges, rank, t);
        const auto found = store->latest_before(rank, t);
        ASSERT_EQ(found.has_value(), expected.has_value()) << "rank " << rank << " t " << t;
        if (expected) {
          ASSERT_EQ(std::tie(found->to, found->awaited), std::tie(expected->to, expected->awaited))
              << "seed " << seed << ", rank " << rank << ", t " << t;
        }
      }
    }
  }
  EXPECT_TRUE(fs::is_empty(dir));  // unlinked as soon as made
  fs::remove_all(dir);
}

TEST(JobEdges, RefusesEdgesOfARankAlreadyAppended) {
  JobEdges edges;
  const std::vector<WaitEdge> first{{2, 0, 10, 20, WaitPattern::kLateSender, 0}};
  edges.append(first);
  EXPECT_THROW(edges.append(first), std::logic_error);
  const std::vector<WaitEdge> earlier{{1, 0, 10, 20, WaitPattern::kLateSender, 0}};
  EXPECT_THROW(edges.append(earlier), std::logic_error);
}

TEST(ProcessEdges, RunsOnFileGiveEachRangeOfWaitingRanksItsEdges) {
  const fs::path dir = rocprof::test::fresh_test_dir("process_edges");
  std::vector<WaitEdge> edges = random_edges(4, 13, 4000);
  std::shuffle(edges.begin(), edges.end(), std::mt19937_64(4));  // found in no order
  for (const std::size_t memory : {std::size_t{1}, 100 * sizeof(WaitEdge), std::size_t{1} << 30}) {
    ProcessEdges process(std::make_shared<ScratchFile>(dir.string()), memory);
    for (const WaitEdge& edge : edges) process.add(edge);
    std::uint64_t counted = 0;
    for (const auto& [rank, count] : process.counts()) {
      EXPECT_EQ(count, static_cast<std::uint64_t>(std::count_if(
                           edges.begin(), edges.end(),
                           [rank = rank](const WaitEdge& e) { return e.waiting == rank; })));
      counted += count;
    }
    EXPECT_EQ(counted, edges.size());
    // Ranges of 1, 3 and 5 ranks, and one past the ranks: each gives exactly its edges.
    for (const std::int32_t width : {1, 3, 5})
      for (std::int32_t first = 0; first < 14; first += width) {
        std::vector<WaitEdge> taken = process.take(first, first + width);
        std::vector<WaitEdge> expected;
        for (const WaitEdge& edge : edges)
          if (edge.waiting >= first && edge.waiting < first + width) expected.push_back(edge);
        const auto by_key = [](const WaitEdge& a, const WaitEdge& b) { return key(a) < key(b); };
        std::sort(taken.begin(), taken.end(), by_key);
        std::sort(expected.begin(), expected.end(), by_key);
        ASSERT_EQ(taken.size(), expected.size()) << "memory " << memory << ", from " << first;
        for (std::size_t i = 0; i < taken.size(); ++i) ASSERT_EQ(key(taken[i]), key(expected[i]));
      }
  }
  EXPECT_TRUE(fs::is_empty(dir));
  fs::remove_all(dir);
}

TEST(ProcessEdges, ARanksEdgesComeInTheOrderTheyWereFound) {
  // Ordered in place (runs and what is held): the blame of a late sender and the edges' one
  // order must not depend on where the budget cut the runs.
  const fs::path dir = rocprof::test::fresh_test_dir("process_edges_order");
  std::mt19937_64 random(7);
  std::vector<WaitEdge> edges(5000);
  for (std::size_t i = 0; i < edges.size(); ++i) {
    edges[i].waiting = static_cast<std::int32_t>(random() % 9);
    edges[i].from = i;  // when it was found
    edges[i].to = i + 1;
  }
  for (const std::size_t memory :
       {std::size_t{0}, 37 * sizeof(WaitEdge), 1000 * sizeof(WaitEdge)}) {
    ProcessEdges process = memory == 0
                               ? ProcessEdges()
                               : ProcessEdges(std::make_shared<ScratchFile>(dir.string()), memory);
    for (const WaitEdge& edge : edges) process.add(edge);
    for (std::int32_t rank = 0; rank < 9; ++rank) {
      const std::vector<WaitEdge> taken = process.take(rank, rank + 1);
      std::vector<std::uint64_t> found;
      for (const WaitEdge& edge : edges)
        if (edge.waiting == rank) found.push_back(edge.from);
      ASSERT_EQ(taken.size(), found.size()) << "memory " << memory << ", rank " << rank;
      for (std::size_t i = 0; i < taken.size(); ++i)
        ASSERT_EQ(taken[i].from, found[i]) << "memory " << memory << ", rank " << rank;
    }
  }
  EXPECT_TRUE(fs::is_empty(dir));
  fs::remove_all(dir);
}
