// The analysis's exchange between threads of several merge processes (simulated by threads
// meeting through a ThreadExchange): every thread gets what each thread of every process sent
// it, a thread that leaves sends nothing, and damage is thrown on every thread of the process.
#include "merge/analysis/nested_exchange.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "merge/analysis/analysis_exchange.hpp"
#include "tests/tools/thread_exchange.hpp"

namespace rocprof::merge {
namespace {

// The bytes thread `from` sends thread `to` at `step`: of a length that is sometimes 0.
std::vector<std::byte> payload(std::size_t from, std::size_t to, std::size_t step) {
  std::vector<std::byte> bytes((from * 7 + to * 3 + step) % 11);
  for (std::size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = static_cast<std::byte>(from * 100 + to * 10 + step + i);
  return bytes;
}

// An outer exchange that hands the parts it receives to `damage` first.
class DamagedOuter final : public AnalysisExchange {
 public:
  DamagedOuter(ThreadExchange::Meeting& meeting, std::size_t index,
               std::function<void(std::vector<std::vector<std::byte>>&)> damage)
      : inner_(meeting, index), damage_(std::move(damage)) {}
  std::size_t processes() const override { return inner_.processes(); }
  std::size_t index() const override { return inner_.index(); }
  std::vector<std::vector<std::byte>> all_to_all(
      std::vector<std::vector<std::byte>> parts) const override {
    std::vector<std::vector<std::byte>> received = inner_.all_to_all(std::move(parts));
    if (damage_) damage_(received);
    return received;
  }

 private:
  ThreadExchange inner_;
  std::function<void(std::vector<std::vector<std::byte>>&)> damage_;
};

// Runs `work(exchange, process, thread)` on every thread of processes of `threads[p]` threads.
void run_processes(
    const std::vector<std::size_t>& threads,
    const std::function<void(const NestedExchange&, std::size_t, std::size_t)>& work,
    const std::function<void(std::vector<std::vector<std::byte>>&)>& damage_first = {}) {
  ThreadExchange::Meeting outer_meeting(threads.size());
  std::vector<std::thread> processes;
  for (std::size_t p = 0; p < threads.size(); ++p)
    processes.emplace_back([&, p] {
      const DamagedOuter outer(outer_meeting, p, p == 0 ? damage_first : nullptr);
      NestedExchange::Meeting meeting(outer, threads[p]);
      std::vector<std::thread> workers;
      for (std::size_t t = 0; t < threads[p]; ++t)
        workers.emplace_back([&, t] { work(NestedExchange(meeting, t), p, t); });
      for (std::thread& worker : workers) worker.join();
    });
  for (std::thread& process : processes) process.join();
}

TEST(NestedExchange, EveryThreadOfEveryProcessGetsWhatEachSentIt) {
  const std::vector<std::size_t> threads{2, 1, 3};
  constexpr std::size_t kTotal = 6;
  constexpr std::size_t kSteps = 5;
  std::vector<std::size_t> indices(kTotal, kTotal);
  std::vector<int> wrong(kTotal, 0);
  run_processes(threads, [&](const NestedExchange& exchange, std::size_t p, std::size_t t) {
    const std::size_t me = exchange.index();
    // Numbered after the threads of the processes before.
    std::size_t first = 0;
    for (std::size_t q = 0; q < p; ++q) first += threads[q];
    indices[first + t] = me;
    if (exchange.processes() != kTotal) ++wrong[me];
    for (std::size_t step = 0; step < kSteps; ++step) {
      std::vector<std::vector<std::byte>> parts(kTotal);
      for (std::size_t to = 0; to < kTotal; ++to) parts[to] = payload(me, to, step);
      const std::vector<std::vector<std::byte>> received = exchange.all_to_all(std::move(parts));
      if (received.size() != kTotal) {
        ++wrong[me];
        continue;
      }
      for (std::size_t from = 0; from < kTotal; ++from)
        if (received[from] != payload(from, me, step)) ++wrong[me];
    }
  });
  for (std::size_t i = 0; i < kTotal; ++i) {
    EXPECT_EQ(indices[i], i);
    EXPECT_EQ(wrong[i], 0) << "thread " << i;
  }
}

TEST(NestedExchange, AThreadThatLeavesSendsNothingAndTheOthersGoOn) {
  const std::vector<std::size_t> threads{1, 2};
  std::vector<std::vector<std::size_t>> sizes_from_leaver(3);  // by receiver, per later step
  run_processes(threads, [&](const NestedExchange& exchange, std::size_t p, std::size_t t) {
    const std::size_t me = exchange.index();
    for (std::size_t step = 0; step < 3; ++step) {
      std::vector<std::vector<std::byte>> parts(3, std::vector<std::byte>(5, std::byte{1}));
      const std::vector<std::vector<std::byte>> received = exchange.all_to_all(std::move(parts));
      if (step > 0) sizes_from_leaver[me].push_back(received[2].size());
      if (p == 1 && t == 1) {  // the last thread leaves after its first step
        exchange.leave();
        return;
      }
    }
  });
  EXPECT_EQ(sizes_from_leaver[0], (std::vector<std::size_t>{0, 0}));
  EXPECT_EQ(sizes_from_leaver[1], (std::vector<std::size_t>{0, 0}));
}

TEST(NestedExchange, DamageIsThrownOnEveryThreadOfTheProcess) {
  // The first process's second exchange gets a packed part cut short: its three threads
  // throw; nothing is read past the part.
  const std::vector<std::size_t> threads{3, 2};
  int exchanges = 0;
  std::vector<std::string> errors(5);
  run_processes(
      threads,
      [&](const NestedExchange& exchange, std::size_t, std::size_t) {
        try {
          for (int step = 0; step < 2; ++step)
            exchange.all_to_all(std::vector<std::vector<std::byte>>(5, payload(1, 2, 3)));
        } catch (const std::exception& error) {
          errors[exchange.index()] = error.what();
        }
      },
      [&](std::vector<std::vector<std::byte>>& received) {
        // Its first exchange tells the numbers of threads; the steps come after.
        if (++exchanges == 3) received[1].resize(received[1].size() - 3);
      });
  for (std::size_t i = 0; i < 3; ++i)
    EXPECT_NE(errors[i].find("damaged"), std::string::npos) << i << ": " << errors[i];
  EXPECT_EQ(errors[3], "");
  EXPECT_EQ(errors[4], "");
}

}  // namespace
}  // namespace rocprof::merge
