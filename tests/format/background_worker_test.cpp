// BackgroundWorker: tasks run on one kept helper thread, one at a time, errors come back at
// wait(), and destruction waits for the task in flight.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <stdexcept>
#include <thread>

#include "lib/format/background_worker.hpp"

namespace {

using rocprof::format::BackgroundWorker;

TEST(BackgroundWorker, RunsEachTaskOnOneKeptThread) {
  BackgroundWorker worker;
  std::set<std::thread::id> threads;
  int sum = 0;
  for (int i = 1; i <= 100; ++i) {
    worker.start([&, i] {
      threads.insert(std::this_thread::get_id());
      sum += i;
    });
    worker.wait();
  }
  EXPECT_EQ(sum, 5050);
  ASSERT_EQ(threads.size(), 1U);
  EXPECT_NE(*threads.begin(), std::this_thread::get_id());
  worker.wait();  // nothing in flight: returns at once
}

TEST(BackgroundWorker, ATaskErrorComesBackAtWaitAndTheWorkerGoesOn) {
  BackgroundWorker worker;
  worker.start([] { throw std::runtime_error("disk full"); });
  EXPECT_THROW(
      {
        try {
          worker.wait();
        } catch (const std::runtime_error& error) {
          EXPECT_STREQ(error.what(), "disk full");
          throw;
        }
      },
      std::runtime_error);
  worker.wait();  // reported once
  bool ran = false;
  worker.start([&] { ran = true; });
  worker.wait();
  EXPECT_TRUE(ran);
}

TEST(BackgroundWorker, DestructionWaitsForTheTaskInFlight) {
  std::atomic<bool> finished{false};
  {
    BackgroundWorker worker;
    worker.start([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      finished = true;
    });
  }
  EXPECT_TRUE(finished);
  {
    BackgroundWorker worker;  // an error nobody waited for is dropped, not thrown
    worker.start([] { throw std::runtime_error("late"); });
    worker.wait_quietly();
  }
}

}  // namespace
