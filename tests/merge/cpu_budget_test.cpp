// The CPUs a merge process counts on when it sizes its helper threads: its affinity mask, or
// its share of the node when the node's merge processes all may run everywhere.
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include "merge/pipeline/cpu_budget.hpp"

namespace {

using rocprof::merge::cpus_per_process;
using rocprof::merge::watch_threads;

unsigned allowed_cpus() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  EXPECT_EQ(::sched_getaffinity(0, sizeof allowed, &allowed), 0);
  return static_cast<unsigned>(CPU_COUNT(&allowed));
}

TEST(CpuBudget, AloneAProcessCountsItsAffinityMask) {
  EXPECT_EQ(cpus_per_process(1), allowed_cpus());
}

TEST(CpuBudget, ProcessesThatMayAllRunEverywhereShareTheNode) {
  const unsigned mine = allowed_cpus();
  const auto online = static_cast<unsigned>(::sysconf(_SC_NPROCESSORS_ONLN));
  for (int processes = 1; processes <= 64; ++processes) {
    const unsigned share = cpus_per_process(processes);
    EXPECT_GE(share, 1U) << processes;
    EXPECT_LE(share, mine) << processes;
    // Masks of every CPU: together they claim no more than the node has (one each at least).
    if (mine == online && share > 1) EXPECT_LE(share * static_cast<unsigned>(processes), online);
  }
  EXPECT_EQ(cpus_per_process(static_cast<int>(online) * 4), 1U);
}

TEST(CpuBudget, ABoundProcessCountsTheCpusItWasGiven) {
  cpu_set_t saved;
  CPU_ZERO(&saved);
  ASSERT_EQ(::sched_getaffinity(0, sizeof saved, &saved), 0);
  int first = 0;
  while (first < CPU_SETSIZE && !CPU_ISSET(first, &saved)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(::sched_setaffinity(0, sizeof one, &one), 0);
  const unsigned bound = cpus_per_process(1);
  const unsigned bound_shared = cpus_per_process(2);
  ASSERT_EQ(::sched_setaffinity(0, sizeof saved, &saved), 0);
  EXPECT_EQ(bound, 1U);
  EXPECT_EQ(bound_shared, 1U);  // one CPU of its own: nothing to share
}

TEST(CpuBudget, WatchThreadsLeaveTheReadingThreadsHalfTheCpus) {
  EXPECT_EQ(watch_threads(1), 0U);  // one CPU: added up on the reading threads
  EXPECT_EQ(watch_threads(2), 1U);
  EXPECT_EQ(watch_threads(5), 2U);
  EXPECT_EQ(watch_threads(16), 8U);
  EXPECT_EQ(watch_threads(128), 8U);
}

}  // namespace
