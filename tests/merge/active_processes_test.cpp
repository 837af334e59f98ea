// active_processes: how many of the launched merge processes merge a job, and which. A small
// job gets fewer; processes sharing a node's CPUs get a few CPUs each, spread over the node;
// processes with CPUs of their own all merge a large job; the first process always merges.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "merge/parallel/active_processes.hpp"

namespace {

using rocprof::merge::active_processes;
using rocprof::merge::MergingLimits;
using rocprof::merge::ProcessPlace;
using Indexes = std::vector<std::size_t>;

constexpr std::uint64_t kMillion = 1'000'000;
// The rule's bounds, as a test chooses them (the merge's own depend on the output).
constexpr std::uint64_t kShare = 8 * kMillion;
const MergingLimits kLimits{.records_per_process = kShare, .cpus_per_process = 4};

// `processes` per node on `nodes` nodes, each process seeing `own` CPUs of the node's `pool`,
// placed a node after another (mpirun's default: by slot).
std::vector<ProcessPlace> nodes_of(std::uint32_t nodes, std::uint32_t processes, std::uint32_t own,
                                   std::uint32_t pool) {
  std::vector<ProcessPlace> places;
  for (std::uint32_t n = 0; n < nodes; ++n)
    for (std::uint32_t p = 0; p < processes; ++p) places.push_back({n * processes, p, own, pool});
  return places;
}

Indexes first_n(std::size_t n) {
  Indexes indexes;
  for (std::size_t i = 0; i < n; ++i) indexes.push_back(i);
  return indexes;
}

TEST(ActiveProcesses, SharedCpusGiveEachMergingProcessItsShareSpreadOverTheNode) {
  // mpirun --bind-to none: 16 processes each see all 32 CPUs.
  const auto places = nodes_of(1, 16, 32, 32);
  const Indexes spread{0, 2, 4, 6, 8, 10, 12, 14};
  EXPECT_EQ(active_processes(places, 1000 * kMillion, kLimits), spread);
  // taskset -c 0-15 around the launch: the pool is 16 CPUs, whatever each one sees.
  EXPECT_EQ(active_processes(nodes_of(1, 16, 16, 16), 1000 * kMillion, kLimits),
            (Indexes{0, 4, 8, 12}));
}

TEST(ActiveProcesses, ProcessesWithCpusOfTheirOwnAllMergeALargeJob) {
  // srun -c 2: each of 16 processes has 2 of the node's 32 CPUs.
  EXPECT_EQ(active_processes(nodes_of(1, 16, 2, 32), 1000 * kMillion, kLimits), first_n(16));
  // Bound to one CPU each: the same.
  EXPECT_EQ(active_processes(nodes_of(1, 8, 1, 8), 1000 * kMillion, kLimits), first_n(8));
}

TEST(ActiveProcesses, ASmallJobHasOneMergingProcessPerItsShareOfRecords) {
  const auto places = nodes_of(1, 16, 2, 32);
  EXPECT_EQ(active_processes(places, 10 * kMillion, kLimits), Indexes{0});
  EXPECT_EQ(active_processes(places, 0, kLimits), Indexes{0});
  EXPECT_EQ(active_processes(places, 3 * kShare, kLimits), (Indexes{0, 1, 2}));
  // One record short of three shares: two processes.
  EXPECT_EQ(active_processes(places, 3 * kShare - 1, kLimits), (Indexes{0, 1}));
  // No such limit.
  EXPECT_EQ(active_processes(places, 0, {.records_per_process = 0, .cpus_per_process = 4}),
            first_n(16));
}

TEST(ActiveProcesses, NodesShareTheMergingProcessesInTurn) {
  // Two nodes of 4 processes sharing 8 CPUs each: two may merge on each.
  const auto places = nodes_of(2, 4, 8, 8);
  EXPECT_EQ(active_processes(places, 1000 * kMillion, kLimits), (Indexes{0, 2, 4, 6}));
  // Three shares of records: the first node's two turns and the second node's first.
  EXPECT_EQ(active_processes(places, 3 * kShare, kLimits), (Indexes{0, 2, 4}));
  EXPECT_EQ(active_processes(places, 2 * kShare, kLimits), (Indexes{0, 4}));
}

TEST(ActiveProcesses, ANodeWithFewCpusStillHasOneMergingProcess) {
  // Four processes sharing 2 CPUs (oversubscribed): one merges.
  EXPECT_EQ(active_processes(nodes_of(1, 4, 2, 2), 1000 * kMillion, kLimits), Indexes{0});
  EXPECT_TRUE(active_processes({}, 1000 * kMillion, kLimits).empty());
}

TEST(ActiveProcesses, AllAndANumberAsked) {
  const auto shared = nodes_of(1, 16, 32, 32);
  const MergingLimits all{.records_per_process = 0, .cpus_per_process = 0};
  EXPECT_EQ(active_processes(shared, 0, all), first_n(16));
  // A number: that many, whatever the job and CPUs, spread as the node's turns go.
  const MergingLimits three{.records_per_process = 0, .cpus_per_process = 0, .most = 3};
  EXPECT_EQ(active_processes(shared, 0, three), first_n(3));
  EXPECT_EQ(active_processes(nodes_of(2, 4, 8, 8), 0, three), (Indexes{0, 1, 4}));
  EXPECT_EQ(
      active_processes(shared, 0, {.records_per_process = 0, .cpus_per_process = 0, .most = 99}),
      first_n(16));
}

TEST(ActiveProcesses, ProcessesPlacedAcrossNodesRoundRobinKeepTheirOrder) {
  // mpirun --map-by node: indexes alternate between two nodes of 8 shared CPUs, 4 each.
  std::vector<ProcessPlace> places;
  for (std::uint32_t i = 0; i < 8; ++i) places.push_back({i % 2, i / 2, 8, 8});
  // Node 0 holds 0, 2, 4, 6 (places 0..3) and takes places 0 and 2: 0 and 4; node 1: 1 and 5.
  EXPECT_EQ(active_processes(places, 1000 * kMillion, kLimits), (Indexes{0, 1, 4, 5}));
}

}  // namespace
