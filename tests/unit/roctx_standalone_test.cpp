// libroctx64 on its own (no tracer in the process): cheap no-ops with the documented
// return values.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <set>
#include <thread>
#include <vector>

#include <roctracer/roctx.h>

namespace {

TEST(RoctxStandalone, NoTracerIsLoaded) {
  EXPECT_EQ(dlopen("libroctracer64.so.4", RTLD_NOLOAD | RTLD_NOW), nullptr);
}

TEST(RoctxStandalone, PushReturnsLevelPopReturnsLevelClosed) {
  EXPECT_EQ(roctxRangePushA("a"), 0);
  EXPECT_EQ(roctxRangePush("b"), 1);  // the macro spelling
  EXPECT_EQ(roctxRangePushA(nullptr), 2);
  EXPECT_EQ(roctxRangePop(), 2);
  EXPECT_EQ(roctxRangePop(), 1);
  EXPECT_EQ(roctxRangePop(), 0);
  EXPECT_EQ(roctxRangePop(), -1);  // nothing open
  EXPECT_EQ(roctxRangePop(), -1);
  EXPECT_EQ(roctxRangePushA("again"), 0);
  EXPECT_EQ(roctxRangePop(), 0);
}

TEST(RoctxStandalone, NestingIsPerThread) {
  roctxRangePushA("main");
  int worker_level = -5;
  std::thread worker([&] { worker_level = roctxRangePushA("worker"); });
  worker.join();
  EXPECT_EQ(worker_level, 0);
  EXPECT_EQ(roctxRangePop(), 0);
}

TEST(RoctxStandalone, RangeIdsAreUniqueAcrossThreads) {
  std::vector<std::vector<roctx_range_id_t>> ids(4);
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 1000; ++i) {
        ids[t].push_back(roctxRangeStart("r"));
        roctxRangeStop(ids[t].back());
      }
    });
  for (auto& thread : threads) thread.join();
  std::set<roctx_range_id_t> all;
  for (const auto& list : ids) all.insert(list.begin(), list.end());
  EXPECT_EQ(all.size(), 4000U);
  EXPECT_EQ(all.count(0), 0U);
}

TEST(RoctxStandalone, MarkAcceptsNullAndVersionIsFourOne) {
  roctxMarkA(nullptr);
  roctxMark("macro");
  EXPECT_EQ(roctx_version_major(), 4U);
  EXPECT_EQ(roctx_version_minor(), 1U);
}

}  // namespace
