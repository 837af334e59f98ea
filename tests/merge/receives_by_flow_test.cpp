// The table that meets each send with its receive by flow id, and the ordering of a rank's
// held ends by slice, against a plain map and a plain filter over random flows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "merge/analysis/end_spill.hpp"
#include "merge/analysis/receives_by_flow.hpp"
#include "merge/analysis/wait_input.hpp"
#include "merge/events/flow_ids.hpp"

namespace rocprof::merge {
namespace {

MessageEnd receive_of(std::uint64_t flow, std::uint64_t begin_ns) {
  return {flow, begin_ns, begin_ns + 1, 0, 0, 0, 0, 0};
}

TEST(ReceivesByFlow, EverySendFindsTheFirstReceiveOfItsFlowAndNoOther) {
  std::mt19937_64 random(20261128);
  // Three ranks' receives: streams of a few to many messages, runs partly present, some
  // flows twice (damage), numbers near 2^32 and the stream's edges.
  std::vector<std::vector<MessageEnd>> ranks(3);
  std::uint64_t begin = 0;
  for (std::uint32_t stream = 0; stream < 40; ++stream) {
    const auto rank = static_cast<std::uint32_t>(random() % ranks.size());
    const std::uint32_t base =
        stream % 5 == 0 ? 0xffffffe0U : static_cast<std::uint32_t>(random() % 1000);
    const std::uint32_t count = 1 + static_cast<std::uint32_t>(random() % 70);
    for (std::uint32_t i = 0; i < count && base + i >= base; ++i) {
      if (random() % 3 == 0) continue;  // this round lacks it
      const std::uint64_t flow = message_flow_id(stream, base + i);
      const int times = random() % 10 == 0 ? 2 : 1;
      for (int t = 0; t < times; ++t) {
        ranks[rank].push_back(receive_of(flow, ++begin));
      }
    }
  }
  for (std::vector<MessageEnd>& ends : ranks) std::shuffle(ends.begin(), ends.end(), random);
  // The first of a flow: the first rank's first that has it.
  std::map<std::uint64_t, std::pair<std::uint64_t, std::uint32_t>> first;  // flow -> begin, rank
  for (std::uint32_t r = 0; r < ranks.size(); ++r)
    for (const MessageEnd& end : ranks[r]) first.try_emplace(end.flow, end.begin_ns, r);
  const ReceivesByFlow table(ranks);
  std::size_t found = 0;
  for (std::uint32_t stream = 0; stream < 41; ++stream)
    for (std::uint64_t place = 0; place < 1100; ++place)
      for (const std::uint64_t number : {place, std::uint64_t{0xffffffe0U} + place % 32}) {
        const std::uint64_t flow = message_flow_id(stream, static_cast<std::uint32_t>(number));
        const ReceivesByFlow::Receive receive = table.find(flow);
        const auto expected = first.find(flow);
        if (expected == first.end()) {
          EXPECT_EQ(receive.end, nullptr) << std::hex << flow;
          continue;
        }
        ASSERT_NE(receive.end, nullptr) << std::hex << flow;
        EXPECT_EQ(receive.end->flow, flow);
        EXPECT_EQ(receive.end->begin_ns, expected->second.first);
        EXPECT_EQ(receive.rank, expected->second.second);
        ++found;
      }
  EXPECT_GE(found, first.size());  // the top numbers are asked more than once
}

TEST(ReceivesByFlow, NoReceivesFindNothing) {
  const std::vector<std::vector<MessageEnd>> none(2);
  const ReceivesByFlow table(none);
  EXPECT_EQ(table.find(message_flow_id(1, 2)).end, nullptr);
  EXPECT_EQ(table.find(0).end, nullptr);
}

// The items of `range` among `all`, as a rank held them: each slice's in the order gathered.
template <typename T>
std::vector<T> by_hand(const std::vector<T>& all, SliceRange range) {
  std::vector<T> in_range;
  for (const T& item : all)
    if (range.holds(slice_of(item))) in_range.push_back(item);
  std::stable_sort(in_range.begin(), in_range.end(),
                   [](const T& a, const T& b) { return slice_of(a) < slice_of(b); });
  return in_range;
}

TEST(RankWaitInput, HeldEndsOrderedBySliceGiveEachRangeTheSameItemsInTheSameOrder) {
  std::mt19937_64 random(7);
  RankWaitInput input;
  for (int i = 0; i < 5000; ++i)
    input.messages.push_back(
        receive_of(message_flow_id(static_cast<std::uint32_t>(random() % 9),
                                   static_cast<std::uint32_t>(random() % 4000)),
                   static_cast<std::uint64_t>(i)));
  for (std::uint32_t i = 0; i < 3000; ++i)
    input.collectives.push_back({random() % 4, i, i + 1, static_cast<std::uint32_t>(random() % 900),
                                 -1, 0, 0, CollectiveKind::kNxN});
  const std::vector<MessageEnd> messages = input.messages;
  const std::vector<CollectiveCall> collectives = input.collectives;
  // The first range orders what is held, the next ones take theirs from that order; the
  // whole last, when all is ordered.
  for (const SliceRange range :
       {SliceRange{0, 1}, SliceRange{3, 40}, SliceRange{100, kEndSlices}, SliceRange{3, 40},
        SliceRange{64, 64}, SliceRange{0, kEndSlices}}) {
    std::vector<MessageEnd> got;
    input.messages_in(range, got);
    const std::vector<MessageEnd> expected = by_hand(messages, range);
    ASSERT_EQ(got.size(), expected.size());
    for (std::size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i].begin_ns, expected[i].begin_ns);
    std::vector<CollectiveCall> calls_got;
    input.collectives_in(range, calls_got);
    const std::vector<CollectiveCall> calls_expected = by_hand(collectives, range);
    ASSERT_EQ(calls_got.size(), calls_expected.size());
    for (std::size_t i = 0; i < calls_got.size(); ++i)
      EXPECT_EQ(calls_got[i].begin_ns, calls_expected[i].begin_ns);
  }
}

// Taken whole in one round, the held ends keep the order they were gathered in.
TEST(RankWaitInput, HeldEndsTakenWholeKeepTheirOrder) {
  RankWaitInput input;
  for (std::uint64_t i = 0; i < 300; ++i)
    input.messages.push_back(receive_of(
        message_flow_id(static_cast<std::uint32_t>(i % 7), static_cast<std::uint32_t>(i)), i));
  std::vector<MessageEnd> got;
  input.messages_in(SliceRange{}, got);
  ASSERT_EQ(got.size(), 300U);
  for (std::uint64_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i].begin_ns, i);
}

}  // namespace
}  // namespace rocprof::merge
