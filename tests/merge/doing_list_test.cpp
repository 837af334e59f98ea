// A rank's doings within a budget: kept as recorded below it, neighbours joined past it, and
// no call's time lost either way.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "merge/analysis/doing_list.hpp"
#include "merge/analysis/rank_doings.hpp"
#include "merge/analysis/wait_input.hpp"

namespace rocprof::merge {
namespace {

constexpr std::uint32_t kTest = 0;  // names
constexpr std::uint32_t kRegion = 1;
constexpr std::uint32_t kKernel = 2;
constexpr std::uint32_t kIprobe = 3;
constexpr std::uint32_t kThread = 0;  // lanes
constexpr std::uint32_t kRegionLane = 1;
constexpr std::uint32_t kQueue = 2;

bool covered(const std::vector<Doing>& kept, const Doing& call) {
  for (const Doing& doing : kept)
    if (doing.lane() == call.lane() && doing.kind() == call.kind() &&
        doing.begin_ns <= call.begin_ns && call.end_ns <= doing.end_ns)
      return true;
  return false;
}

TEST(DoingList, BelowItsBudgetEveryDoingIsKeptAsRecorded) {
  DoingList list(100);
  std::vector<Doing> added;
  for (std::uint64_t i = 0; i < 50; ++i) {
    added.emplace_back(i * 1000, i * 1000 + 10, kTest, kThread, DoingKind::kMpiCall);
    list.add(added.back());
  }
  EXPECT_EQ(list.joined_within_ns(), 0U);
  const std::vector<Doing> kept = list.take();
  ASSERT_EQ(kept.size(), added.size());
  for (std::size_t i = 0; i < kept.size(); ++i) {
    EXPECT_EQ(kept[i].begin_ns, added[i].begin_ns);
    EXPECT_EQ(kept[i].end_ns, added[i].end_ns);
  }
}

TEST(DoingList, APollingLoopPastTheBudgetIsJoinedWithEveryCallsTimeKept) {
  // A thread polls with MPI_Test (1 us, 200 ns apart), an MPI_Iprobe of 3 us every 100th
  // time, inside one long region, while its GPU runs kernels: 200,000 calls for 4,096 doings.
  std::mt19937_64 random(5);
  DoingList list(4096);
  std::vector<Doing> calls;
  std::uint64_t t = 1000;
  for (int i = 0; i < 200000; ++i) {
    const bool probe = i % 100 == 99;
    const std::uint64_t length = probe ? 3000 : 1000 + random() % 50;
    calls.emplace_back(t, t + length, probe ? kIprobe : kTest, kThread, DoingKind::kMpiCall);
    list.add(calls.back());
    if (i % 1000 == 0) list.add(Doing(t, t + 50000, kKernel, kQueue, DoingKind::kGpuWork));
    t += length + 200;
  }
  list.add(Doing(0, t + 1000, kRegion, kRegionLane, DoingKind::kRegion));
  EXPECT_GT(list.joined_within_ns(), 0U);
  const std::vector<Doing> kept = list.take();
  EXPECT_LE(kept.size(), 4096U);
  EXPECT_TRUE(std::is_sorted(kept.begin(), kept.end(), doing_order));
  for (std::size_t i = 0; i < calls.size(); i += 997) EXPECT_TRUE(covered(kept, calls[i])) << i;
  EXPECT_TRUE(covered(kept, calls.back()));
  for (const Doing& doing : kept) {
    // Kinds and lanes never mix; a joined call is named after the longer (the polling).
    if (doing.kind() == DoingKind::kMpiCall) {
      EXPECT_EQ(doing.lane(), kThread);
      EXPECT_EQ(doing.name, kTest);
    }
    if (doing.kind() == DoingKind::kGpuWork) {
      EXPECT_EQ(doing.lane(), kQueue);
    }
  }
  // The loop's time goes to MPI_Test, not to the region around it nor to nothing.
  RankWaitInput input;
  input.rank = 0;
  input.names = {"MPI_Test", "loop", "kernel k", "MPI_Iprobe"};
  input.doings = kept;
  input.region_lanes = {{kRegionLane, 0, 0}};
  const RankDoings doings(input);
  std::map<std::string, double> shares;
  doings.attribute(1000, t - 200, [&](const std::string& name, double ns) { shares[name] += ns; });
  double total = 0;
  for (const auto& [name, ns] : shares) total += ns;
  EXPECT_EQ(total, static_cast<double>(t - 200 - 1000));
  EXPECT_GE(shares["MPI_Test"] / total, 0.99);
  EXPECT_EQ(shares.count(""), 0U);
}

}  // namespace
}  // namespace rocprof::merge
