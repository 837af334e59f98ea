// The message matcher on hand-written spills: endpoints with known times, so the counts, the
// least correction and its propagation along a chain of messages can be checked exactly.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "merge/causality/messages.hpp"
#include "merge/causality/stream_table.hpp"

namespace rocprof::merge {
namespace {

struct Message {
  std::int32_t from;
  std::int32_t to;
  std::uint64_t sent_ns;
  std::uint64_t received_ns;
  // The place of the receive that completed at received_ns among the stream's posted
  // receives; -1: the message's own place.
  std::int64_t receive_ordinal = -1;
};

// One spill holding every rank's endpoints (a serial merge), written as EndpointSpill does.
class HandSpill {
 public:
  explicit HandSpill(const std::vector<Message>& messages, std::int32_t ranks) {
    path_ = (std::filesystem::temp_directory_path() /
             ("causality_test." + std::to_string(::getpid()) + "." + std::to_string(serial_++)))
                .string();
    std::map<std::int32_t, std::vector<SpilledEndpoint>> by_rank;
    std::map<StreamKey, std::uint32_t> local;
    for (const Message& m : messages) {
      const StreamKey key{1, m.from, m.to, 0};
      const auto [entry, added] =
          local.try_emplace(key, static_cast<std::uint32_t>(summary_.streams.size()));
      if (added) summary_.streams.push_back({key, 0, 0});
      // The k-th message of a stream is its k-th send and fills its k-th posted receive,
      // unless the message says otherwise (a receive posted out of order).
      StreamCount& stream = summary_.streams[entry->second];
      const auto ordinal = static_cast<std::uint32_t>(stream.sends++);
      ++stream.receives;
      const std::uint32_t receive_ordinal =
          m.receive_ordinal >= 0 ? static_cast<std::uint32_t>(m.receive_ordinal) : ordinal;
      by_rank[m.from].push_back({m.sent_ns, entry->second, ordinal << 1});
      by_rank[m.to].push_back({m.received_ns, entry->second, receive_ordinal << 1 | 1U});
    }
    std::FILE* file = std::fopen(path_.c_str(), "wb");
    std::uint64_t written = 0;
    for (std::int32_t rank = 0; rank < ranks; ++rank) {
      auto& endpoints = by_rank[rank];
      // A rank's file order is its time order here.
      std::stable_sort(endpoints.begin(), endpoints.end(),
                       [](const auto& a, const auto& b) { return a.time_ns < b.time_ns; });
      std::fwrite(endpoints.data(), sizeof(SpilledEndpoint), endpoints.size(), file);
      summary_.sections.push_back({rank, 0, written, endpoints.size()});
      written += endpoints.size();
    }
    std::fclose(file);
    summary_.path = path_;
  }
  ~HandSpill() { std::remove(path_.c_str()); }
  HandSpill(const HandSpill&) = delete;
  HandSpill& operator=(const HandSpill&) = delete;

  CausalityReport check(bool correct, std::vector<InvisibleTarget> invisible = {}) const {
    const StreamTable table(summary_.streams, std::move(invisible));
    return check_causality({summary_}, table, correct);
  }
  SpillSummary& summary() { return summary_; }

 private:
  static inline int serial_ = 0;
  std::string path_;
  SpillSummary summary_;
};

TEST(Causality, ConsistentMessagesNeedNoCorrection) {
  const HandSpill spill({{0, 1, 100, 200}, {1, 0, 300, 400}, {0, 1, 500, 600}}, 2);
  const CausalityReport report = spill.check(true);
  EXPECT_EQ(report.messages, 3U);
  EXPECT_EQ(report.violations_before, 0U);
  EXPECT_EQ(report.violations_after, 0U);
  EXPECT_TRUE(report.corrections.empty());
}

TEST(Causality, TheLeastShiftFixesAViolationAndPropagatesAlongTheChain) {
  // Rank 1 receives 50 ns before rank 0 sent; it then sends to rank 2, whose receive is only
  // 30 ns after that send: once rank 1 moves forward by 50, rank 2 must move by 20.
  const HandSpill spill({{0, 1, 1000, 950}, {1, 2, 1100, 1130}}, 3);
  const CausalityReport off = spill.check(false);
  EXPECT_EQ(off.violations_before, 1U);
  EXPECT_EQ(off.violations_after, 1U);
  EXPECT_TRUE(off.corrections.empty());

  const CausalityReport fixed = spill.check(true);
  EXPECT_EQ(fixed.messages, 2U);
  EXPECT_EQ(fixed.violations_before, 1U);
  EXPECT_EQ(fixed.violations_after, 0U);
  ASSERT_EQ(fixed.corrections.size(), 2U);
  const StepFunction& one = fixed.corrections.at(1);
  EXPECT_EQ(one.at(949), 0U);  // before the receive: untouched
  EXPECT_EQ(one.at(950), 50U);
  EXPECT_EQ(one.at(1100), 50U);
  const StepFunction& two = fixed.corrections.at(2);
  EXPECT_EQ(two.at(1129), 0U);
  EXPECT_EQ(two.at(1130), 20U);
  EXPECT_EQ(fixed.max_shift_ns, 50U);
}

TEST(Causality, StreamsThatCannotBeMatchedAreLeftOut) {
  HandSpill spill({{0, 1, 100, 90}, {2, 1, 100, 90}}, 3);
  // Rank 1 also received something of unknown source on communicator 1 (MPI_Sendrecv): its
  // streams there cannot be matched in order.
  const CausalityReport report = spill.check(true, {{1, 1}});
  EXPECT_EQ(report.messages, 0U);
  EXPECT_EQ(report.violations_before, 0U);
  // Unequal counts: one receive recorded, two sends.
  spill.summary().streams[0].sends = 2;
  EXPECT_EQ(spill.check(true).messages, 1U);
}

TEST(Causality, AnInconsistentOrderIsGivenUpRatherThanWaitedForForever) {
  // Each rank receives first and sends later, and each receive needs the other's send: in a
  // real run this is a deadlock, so the records cannot be right; the matcher must not hang.
  HandSpill spill({{0, 1, 500, 100}, {1, 0, 500, 100}}, 2);
  const CausalityReport report = spill.check(true);
  EXPECT_EQ(report.given_up.size(), 1U);
  EXPECT_EQ(report.messages, 1U);
}

TEST(Causality, ReportsCrossMergeProcessesUnchanged) {
  const HandSpill spill({{0, 1, 1000, 950}, {1, 2, 1100, 1130}}, 3);
  const CausalityReport report = spill.check(true);
  const CausalityReport copy = CausalityReport::deserialize(report.serialize());
  EXPECT_EQ(copy.messages, report.messages);
  EXPECT_EQ(copy.violations_before, report.violations_before);
  EXPECT_EQ(copy.max_shift_ns, report.max_shift_ns);
  ASSERT_EQ(copy.corrections.size(), report.corrections.size());
  for (const auto& [rank, steps] : report.corrections)
    EXPECT_EQ(copy.corrections.at(rank).steps(), steps.steps());
  const SpillSummary summary = SpillSummary::deserialize([&] {
    SpillSummary s;
    s.path = "x.messages.3";
    s.streams = {{{7, 1, 2, 3}, 4, 5}};
    s.invisible = {{7, 2}};
    s.sections = {{2, 0, 10, 20}};
    return s.serialize();
  }());
  EXPECT_EQ(summary.path, "x.messages.3");
  ASSERT_EQ(summary.streams.size(), 1U);
  EXPECT_EQ(summary.streams[0].key, (StreamKey{7, 1, 2, 3}));
  EXPECT_EQ(summary.streams[0].receives, 5U);
  EXPECT_EQ(summary.sections[0].count, 20U);
  EXPECT_THROW(SpillSummary::deserialize(std::vector<std::byte>(3)), std::runtime_error);
}

TEST(Causality, ReceivesArePairedByThePlaceTheyWerePostedInNotByCompletion) {
  // Rank 1 posts two receives from rank 0 on one stream and completes the second first, at
  // 450, before rank 0 even began the second send (at 500): MPI gave the second message to
  // the second receive, so that is a violation (by 50 ns), although pairing by completion
  // order (first send at 100 with the completion at 450) would have seen none.
  HandSpill spill({{0, 1, 100, 600, 0}, {0, 1, 500, 450, 1}}, 2);
  const CausalityReport report = spill.check(true);
  EXPECT_EQ(report.messages, 2U);
  EXPECT_EQ(report.violations_before, 1U);
  EXPECT_EQ(report.violations_after, 0U);
  EXPECT_EQ(report.max_shift_ns, 50U);
  ASSERT_TRUE(report.corrections.contains(1));
  EXPECT_EQ(report.corrections.at(1).at(450), 50U);
}

TEST(Causality, FlowIdsComeFromTheStreamAndTheEndpointsOrdinal) {
  const StreamTable table({{{1, 0, 1, 0}, 2, 2}, {{1, 1, 0, 0}, 1, 1}}, {});
  using Kind = MessageEndpoint::Kind;
  const MessageEndpoint first_send{Kind::kSend, {1, 0, 1, 0}, 0, 0};
  const MessageEndpoint second_send{Kind::kSend, {1, 0, 1, 0}, 0, 1};
  const auto first = table.flow(first_send);
  const auto second = table.flow(second_send);
  ASSERT_TRUE(first && second);
  EXPECT_NE(*first, *second);
  // Each receive ends the flow of the send with its ordinal, whichever completed first.
  EXPECT_EQ(table.flow({Kind::kReceive, {1, 0, 1, 0}, 9, 1}), second);
  EXPECT_EQ(table.flow({Kind::kReceive, {1, 0, 1, 0}, 10, 0}), first);
  EXPECT_EQ(table.flow({Kind::kSend, {1, 0, 1, 9}, 0, 0}), std::nullopt);  // no such stream
}

}  // namespace
}  // namespace rocprof::merge
