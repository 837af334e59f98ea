// Region imbalance across ranks: totals, and instance by instance for regions every rank ran
// as often, with bounded buckets that widen as the run grows.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "merge/analysis/region_imbalance.hpp"

namespace rocprof::merge {
namespace {

InstanceSeries series_of(const std::vector<double>& durations) {
  InstanceSeries series;
  for (const double duration : durations) series.add(duration);
  return series;
}

TEST(RegionImbalance, InstanceBucketsWidenAndKeepEveryInstance) {
  InstanceSeries series;
  for (std::uint64_t i = 0; i < 5000; ++i) series.add(static_cast<double>(i));
  EXPECT_EQ(series.count, 5000U);
  EXPECT_EQ(series.width, 8U);  // 5000 / 1024 rounded up to a power of two
  EXPECT_LE(series.sums.size(), InstanceSeries::kMaxBuckets);
  double total = 0;
  for (const double sum : series.sums) total += sum;
  EXPECT_EQ(total, 4999.0 * 5000.0 / 2);
  EXPECT_EQ(series.sums[1], 8 + 9 + 10 + 11 + 12 + 13 + 14 + 15);
}

TEST(RegionImbalance, TotalsAndTheInstanceWhereItWasWorst) {
  RegionImbalanceInput input;
  // "step" 4 times on 3 ranks; rank 2 is slow in the third (index 2) only.
  input.add(0, "step", series_of({10, 10, 10, 10}));
  input.add(1, "step", series_of({10, 10, 10, 10}));
  input.add(2, "step", series_of({10, 10, 40, 10}));
  // A thread with fewer instances of it on rank 0 does not replace the busiest one.
  input.add(0, "step", series_of({99}));
  // "setup" a different number of times per rank: totals only.
  input.add(0, "setup", series_of({5}));
  input.add(1, "setup", series_of({5, 5}));
  // Only one rank: left out.
  input.add(0, "io", series_of({1, 2}));
  const std::vector<RegionImbalance> regions = region_imbalance(input);
  ASSERT_EQ(regions.size(), 2U);
  const RegionImbalance& step = regions[0];
  EXPECT_EQ(step.name, "step");
  EXPECT_EQ(step.instances, 4U);
  EXPECT_EQ(step.max_rank, 2);
  EXPECT_DOUBLE_EQ(step.mean_total_ns, 50);
  EXPECT_DOUBLE_EQ(step.imbalance(), 70.0 / 50.0);
  ASSERT_EQ(step.over_time.size(), 4U);
  EXPECT_DOUBLE_EQ(step.over_time[0], 1.0);
  EXPECT_DOUBLE_EQ(step.over_time[2], 40.0 / 20.0);
  EXPECT_DOUBLE_EQ(step.worst, 2.0);
  EXPECT_EQ(step.worst_first, 2U);
  const RegionImbalance& setup = regions[1];
  EXPECT_EQ(setup.instances, 0U);
  EXPECT_TRUE(setup.over_time.empty());
  EXPECT_DOUBLE_EQ(setup.imbalance(), 10.0 / 7.5);
  // Through a merge process and back.
  ByteWriter out;
  input.put(out);
  const std::vector<std::byte> bytes = out.take();
  ByteReader in(bytes);
  RegionImbalanceInput copy;
  copy.get(in);
  EXPECT_TRUE(in.done());
  EXPECT_EQ(region_imbalance(copy).front().over_time, step.over_time);
}

TEST(RegionImbalance, RanksWithDifferentBucketWidthsAreComparedAtTheWidest) {
  RegionImbalanceInput input;
  InstanceSeries wide = series_of({1, 1});
  wide.widen_to(2);
  input.add(0, "r", wide);               // one bucket of 2
  input.add(1, "r", series_of({1, 3}));  // two buckets of 1
  const std::vector<RegionImbalance> regions = region_imbalance(input);
  ASSERT_EQ(regions.size(), 1U);
  EXPECT_EQ(regions[0].width, 2U);
  ASSERT_EQ(regions[0].over_time.size(), 1U);
  EXPECT_DOUBLE_EQ(regions[0].over_time[0], 4.0 / 3.0);
}

}  // namespace
}  // namespace rocprof::merge
