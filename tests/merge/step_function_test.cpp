// The causality correction's compact step function against the plain definition (a sorted
// vector of steps, every later step raised with each raise), over raises in order, out of
// order and across chunk boundaries; its encoding going between processes, and refused when
// damaged.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include "merge/clock/step_function.hpp"

namespace rocprof::merge {
namespace {

using Step = StepFunction::Step;

// The definition: from t on at least at(t) + shift.
struct PlainSteps {
  std::vector<Step> steps;
  std::uint64_t at(std::uint64_t t) const {
    const auto after = std::upper_bound(steps.begin(), steps.end(), Step{t, ~std::uint64_t{0}});
    return after == steps.begin() ? 0 : std::prev(after)->second;
  }
  void raise(std::uint64_t t, std::uint64_t shift) {
    const std::uint64_t total = at(t) + shift;
    auto position = std::lower_bound(steps.begin(), steps.end(), Step{t, 0});
    if (position != steps.end() && position->first == t)
      position->second = std::max(position->second, total);
    else
      position = steps.insert(position, {t, total});
    for (auto it = position; it != steps.end(); ++it) it->second = std::max(it->second, total);
  }
};

// Both give the same value everywhere that matters: at every step, next to it, between.
void expect_same(const StepFunction& function, const PlainSteps& plain) {
  ASSERT_EQ(function.steps(), plain.steps);
  EXPECT_EQ(function.size(), plain.steps.size());
  EXPECT_EQ(function.max(), plain.steps.empty() ? 0 : plain.steps.back().second);
  std::vector<std::uint64_t> times = {0, 1, ~std::uint64_t{0}};
  for (const auto& [t, value] : plain.steps)
    for (const std::uint64_t near : {t - 1, t, t + 1, t + 7}) times.push_back(near);
  StepFunction::Lookup in_order(function);
  for (const std::uint64_t t : times) {
    EXPECT_EQ(function.at(t), plain.at(t)) << "t " << t;
    EXPECT_EQ(in_order.at(t), plain.at(t)) << "t " << t;
  }
  std::mt19937 shuffle(7);
  std::shuffle(times.begin(), times.end(), shuffle);
  StepFunction::Lookup anywhere(function);
  for (const std::uint64_t t : times) EXPECT_EQ(anywhere.at(t), plain.at(t)) << "t " << t;
}

TEST(StepFunction, RaisesInTimeOrderAreKeptExactlyInFewBytesAStep) {
  StepFunction function;
  PlainSteps plain;
  std::mt19937_64 random(1);
  std::uint64_t t = 5'000'000'000;
  for (int i = 0; i < 10'000; ++i) {  // a walk's raises: forward, by a few microseconds
    t += 1 + random() % 20'000;
    const std::uint64_t shift = 1 + random() % 300;
    function.raise(t, shift);
    plain.raise(t, shift);
  }
  expect_same(function, plain);
  function.shrink_to_fit();
  // Differences of a few thousand ns take two or three bytes each, the chunks' heads less
  // than one a step: far below the 16 bytes a step of the plain form.
  EXPECT_LT(function.memory_bytes(), plain.steps.size() * 6);
}

TEST(StepFunction, RaisesOutOfOrderRaiseEveryLaterStep) {
  for (const unsigned seed : {1U, 2U, 3U, 4U}) {
    SCOPED_TRACE(seed);
    StepFunction function;
    PlainSteps plain;
    std::mt19937_64 random(seed);
    std::uint64_t t = 1'000;
    for (int i = 0; i < 3'000; ++i) {
      t += random() % 1'000;
      // Mostly forward; now and then far back (before earlier chunks), on a step or before
      // every step.
      std::uint64_t when = t;
      switch (random() % 10) {
        case 0:
          when = t - std::min<std::uint64_t>(t, random() % 200'000);
          break;
        case 1:
          when = plain.steps.empty() ? t : plain.steps[random() % plain.steps.size()].first;
          break;
        case 2:
          when = random() % 500;
          break;
        default:
          break;
      }
      const std::uint64_t shift = random() % 50;  // zero sometimes: no step
      function.raise(when, shift);
      plain.raise(when, shift);
    }
    // The plain form keeps steps a zero raise adds; the compact one may not: compare values.
    std::vector<Step> distinct;
    for (const Step& step : plain.steps)
      if (distinct.empty() || step.second != distinct.back().second) distinct.push_back(step);
    std::vector<Step> mine;
    for (const Step& step : function.steps())
      if (mine.empty() || step.second != mine.back().second) mine.push_back(step);
    EXPECT_EQ(mine, distinct);
    for (std::uint64_t probe = 0; probe < t + 10; probe += 97)
      ASSERT_EQ(function.at(probe), plain.at(probe)) << "t " << probe;
  }
}

TEST(StepFunction, TheEncodingGivesTheSameFunctionBack) {
  StepFunction function;
  PlainSteps plain;
  for (std::uint64_t i = 1; i <= 1000; ++i) {
    // Differences from one byte to the largest: times near the end of the clock.
    const std::uint64_t t = i == 1000 ? ~std::uint64_t{0} - 1 : i * i * 1'000'003;
    function.raise(t, i * 13);
    plain.raise(t, i * 13);
  }
  const StepFunction copy = StepFunction::from_encoded(function.chunks(), function.deltas());
  expect_same(copy, plain);
  StepFunction empty = StepFunction::from_encoded({}, {});
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.at(12345), 0U);
}

TEST(StepFunction, ADamagedEncodingIsRefused) {
  StepFunction function;
  for (std::uint64_t i = 1; i <= 200; ++i) function.raise(i * 1000, 5);
  auto chunks = function.chunks();
  auto deltas = function.deltas();
  ASSERT_GE(chunks.size(), 3U);
  {
    auto cut = deltas;
    cut.pop_back();  // a difference runs past the bytes
    EXPECT_THROW(StepFunction::from_encoded(chunks, cut), std::runtime_error);
  }
  {
    auto longer = deltas;
    longer.push_back(0x80);  // a varint that never ends
    EXPECT_THROW(StepFunction::from_encoded(chunks, longer), std::runtime_error);
  }
  {
    auto bad = chunks;
    bad[1].count = StepFunction::kChunkSteps + 1;
    EXPECT_THROW(StepFunction::from_encoded(bad, deltas), std::runtime_error);
  }
  {
    auto bad = chunks;
    std::swap(bad[1].time, bad[2].time);  // out of time order
    EXPECT_THROW(StepFunction::from_encoded(bad, deltas), std::runtime_error);
  }
  {
    auto bad = chunks;
    bad[2].offset += 1;  // chunks' differences overlap
    EXPECT_THROW(StepFunction::from_encoded(bad, deltas), std::runtime_error);
  }
  {
    auto zero = deltas;
    zero[0] = 0;  // a difference changed: the bytes no longer line up
    EXPECT_THROW(StepFunction::from_encoded(chunks, zero), std::runtime_error);
  }
  std::vector<Step> backwards = {{10, 5}, {20, 3}};
  StepFunction refused;
  EXPECT_THROW(refused.assign(backwards), std::runtime_error);
}

}  // namespace
}  // namespace rocprof::merge
