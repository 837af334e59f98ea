// TSC ticks to trace-clock nanoseconds: within 1 µs over a simulated hour of drifting TSC
// frequency with noisy pair readings, and against real clock readings on this machine.
#include "lib/recorder/tick_clock.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace {

using rocprof::recorder::TickConverter;
using rocprof::recorder::TickPair;

// A TSC of 2.1 GHz that runs 40 ppm fast, wandering by ±15 ppm over an hour, against the
// true time t (ns since the start).
struct DriftingTsc {
  static constexpr double kHz = 2.1e9;
  static constexpr double kOffsetPpm = 40e-6;
  static constexpr double kWanderPpm = 15e-6;
  static constexpr double kPeriodNs = 3600e9;
  // Up for 300 days: past 2^53 ns, where a double no longer holds every nanosecond.
  static constexpr std::uint64_t kBootNs = 300ULL * 86'400 * 1'000'000'000;
  std::uint64_t tick_at(double t_ns) const {
    const double phase = 2 * std::numbers::pi * t_ns / kPeriodNs;
    const double wander = kWanderPpm * kPeriodNs / (2 * std::numbers::pi) * (1 - std::cos(phase));
    return static_cast<std::uint64_t>(1e9 + kHz * (t_ns * (1 + kOffsetPpm) + wander) / 1e9);
  }
};

TEST(TickConverter, WithinAMicrosecondOverAnHourOfDrift) {
  const DriftingTsc tsc;
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> read_noise(-20.0, 20.0);  // ns either way
  TickConverter converter;
  double worst_ns = 0;
  constexpr double kSecond = 1e9;
  for (int second = 0; second <= 3600; ++second) {
    // A pair read with noise, every second (as the recorder's deliveries give them).
    const double t = second * kSecond;
    converter.observe(
        {tsc.tick_at(t + read_noise(random)),
         DriftingTsc::kBootNs + static_cast<std::uint64_t>(std::max(0.0, t + read_noise(random)))});
    if (second == 0) continue;
    // Records of the second just past, converted once the pair after them is known.
    std::uniform_real_distribution<double> within(t - kSecond, t);
    for (int i = 0; i < 50; ++i) {
      const double when = within(random);
      const auto got = static_cast<double>(
          static_cast<std::int64_t>(converter.to_ns(tsc.tick_at(when)) - DriftingTsc::kBootNs));
      worst_ns = std::max(worst_ns, std::abs(got - when));
    }
  }
  EXPECT_LT(worst_ns, 1000.0);
  std::printf("[ drift    ] worst conversion error over 3600 s: %.1f ns\n", worst_ns);
}

TEST(TickConverter, ExtrapolatesHalfASecondWithinAMicrosecond) {
  const DriftingTsc tsc;
  std::mt19937_64 random(11);
  std::uniform_real_distribution<double> read_noise(-20.0, 20.0);
  TickConverter converter;
  for (int step = 0; step <= 20; ++step) {  // pairs 100 ms apart for 2 s
    const double t = step * 100e6;
    converter.observe(
        {tsc.tick_at(t + read_noise(random)),
         DriftingTsc::kBootNs + static_cast<std::uint64_t>(std::max(0.0, t + read_noise(random)))});
  }
  for (const double ahead : {1e6, 100e6, 500e6}) {
    const double when = 2e9 + ahead;
    const auto got = static_cast<double>(
        static_cast<std::int64_t>(converter.to_ns(tsc.tick_at(when)) - DriftingTsc::kBootNs));
    EXPECT_LT(std::abs(got - when), 1000.0) << "ahead " << ahead;
  }
  // Before the first pair too.
  const auto got = static_cast<double>(
      static_cast<std::int64_t>(converter.to_ns(tsc.tick_at(-50e6)) - DriftingTsc::kBootNs));
  EXPECT_LT(std::abs(got + 50e6), 1000.0);
}

TEST(TickConverter, KeepsPairsAHundredMillisecondsApartAndNeverGoesBack) {
  TickConverter converter;
  EXPECT_TRUE(converter.observe({1000, 1'000'000'000}));
  EXPECT_FALSE(converter.observe({1000 + 2'000'000, 1'001'000'000}));  // 1 ms later: not kept
  // The newest pair is used while it is the newest: its tick converts to its ns.
  EXPECT_EQ(converter.to_ns(1000 + 2'000'000), 1'001'000'000U);
  EXPECT_TRUE(converter.observe({1000 + 210'000'000, 1'100'000'000}));
  // Ticks that grow give times that do not fall, across every pair (2.1 ticks per ns).
  std::uint64_t previous = 0;
  std::vector<std::uint64_t> forward;
  for (std::uint64_t tick = 0; tick < 400'000'000; tick += 99'991) {
    const std::uint64_t ns = converter.to_ns(tick);
    EXPECT_GE(ns, previous) << "tick " << tick;
    previous = ns;
    forward.push_back(ns);
  }
  // The same in any order: the span remembered from the previous tick changes nothing.
  std::size_t i = forward.size();
  for (std::uint64_t tick = 99'991 * (forward.size() - 1);; tick -= 99'991) {
    EXPECT_EQ(converter.to_ns(tick), forward[--i]) << "tick " << tick;
    if (tick == 0) break;
  }
}

TEST(TickClock, RealReadingsConvertWithinAMicrosecond) {
  std::string why;
  if (!rocprof::recorder::tsc_is_usable(why)) GTEST_SKIP() << "no usable TSC here: " << why;
  TickConverter converter;
  std::vector<TickPair> truth;
  for (int round = 0; round < 16; ++round) {  // 1.6 s
    converter.observe(rocprof::recorder::read_tick_pair());
    for (int i = 0; i < 10; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      truth.push_back(rocprof::recorder::read_tick_pair());
    }
  }
  converter.observe(rocprof::recorder::read_tick_pair());
  double worst_ns = 0;
  for (const TickPair& reading : truth)
    worst_ns = std::max(worst_ns, std::abs(static_cast<double>(converter.to_ns(reading.tick)) -
                                           static_cast<double>(reading.ns)));
  std::printf("[ real     ] %s; worst of %zu readings: %.1f ns\n", why.c_str(), truth.size(),
              worst_ns);
  EXPECT_LT(worst_ns, 1000.0);
}

}  // namespace
