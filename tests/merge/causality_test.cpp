// The message matcher on hand-written spills: endpoints with known times, so the counts, the
// least correction and its propagation along a chain of messages can be checked exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <queue>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "merge/causality/messages.hpp"
#include "merge/events/stream_table.hpp"
#include "tests/tools/thread_exchange.hpp"

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
  // The receive's posting call overlapped another thread's (SpilledEndpoint::unordered).
  bool unordered = false;
};

// One spill holding every rank's endpoints (a serial merge), written as EndpointSpill does.
class HandSpill {
 public:
  // `shuffle`: a generator that swaps some neighbouring endpoints of a rank after they are
  // put in time order (records of several threads).
  // `threaded`: the ranks whose sections say their calls came from several threads.
  explicit HandSpill(const std::vector<Message>& messages, std::int32_t ranks,
                     std::mt19937* shuffle = nullptr, const std::set<std::int32_t>& threaded = {}) {
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
      by_rank[m.from].push_back(
          {m.sent_ns, entry->second, SpilledEndpoint::make_place(ordinal, false)});
      by_rank[m.to].push_back({m.received_ns, entry->second,
                               SpilledEndpoint::make_place(receive_ordinal, true, m.unordered)});
    }
    std::FILE* file = std::fopen(path_.c_str(), "wb");
    std::uint64_t written = 0;
    for (std::int32_t rank = 0; rank < ranks; ++rank) {
      auto& endpoints = by_rank[rank];
      // A rank's file order is its time order here.
      std::stable_sort(endpoints.begin(), endpoints.end(),
                       [](const auto& a, const auto& b) { return a.time_ns < b.time_ns; });
      // A stream's sends stay in their order: a rank file numbers them in its order.
      if (shuffle != nullptr)
        for (std::size_t i = 1; i < endpoints.size(); ++i) {
          const bool both_send = !endpoints[i - 1].receive() && !endpoints[i].receive();
          if ((*shuffle)() % 16 == 0 &&
              !(both_send && endpoints[i - 1].stream == endpoints[i].stream))
            std::swap(endpoints[i - 1], endpoints[i]);
        }
      by_rank_.push_back(endpoints);
      std::fwrite(endpoints.data(), sizeof(SpilledEndpoint), endpoints.size(), file);
      summary_.sections.push_back(
          {rank, threaded.contains(rank) ? 1U : 0U, written, endpoints.size()});
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
  // The spill cut into `processes` spills of the same file, a block of ranks each, as merge
  // processes would have written them (each counting its own ranks' endpoints).
  std::vector<SpillSummary> split(std::size_t processes) const {
    std::vector<SpillSummary> spills(processes);
    const std::size_t ranks = summary_.sections.size();
    for (std::size_t p = 0; p < processes; ++p) {
      SpillSummary& spill = spills[p];
      spill.path = summary_.path;
      spill.invisible = summary_.invisible;
      spill.streams = summary_.streams;
      for (StreamCount& stream : spill.streams) stream.sends = stream.receives = 0;
      for (std::size_t r = p * ranks / processes; r < (p + 1) * ranks / processes; ++r) {
        spill.sections.push_back(summary_.sections[r]);
        for (const SpilledEndpoint& endpoint : by_rank_[r])
          ++(endpoint.receive() ? spill.streams[endpoint.stream].receives
                                : spill.streams[endpoint.stream].sends);
      }
    }
    return spills;
  }
  SpillSummary& summary() { return summary_; }
  const SpillSummary& summary() const { return summary_; }
  // Each rank's endpoints in file order.
  const std::vector<std::vector<SpilledEndpoint>>& by_rank() const { return by_rank_; }

 private:
  static inline int serial_ = 0;
  std::string path_;
  SpillSummary summary_;
  std::vector<std::vector<SpilledEndpoint>> by_rank_;
};

// The matcher's definition, kept plain: every rank's endpoints in one walk in corrected time
// order (a heap of ranks), a receive taken only after its send, in memory. What the matcher
// finds must not depend on the order it takes ranks in, so it must find the same.
struct Walked {
  std::uint64_t before = 0;
  std::uint64_t after = 0;
  std::map<std::int32_t, StepFunction> steps;
  std::vector<std::uint32_t> given_up;  // the spill's stream indexes
};

// `table_order`: the spill's stream indexes in the stream table's order (which the earliest of
// several waiting receives is found in).
Walked time_ordered_walk(const std::vector<std::vector<SpilledEndpoint>>& ranks,
                         const std::vector<std::uint32_t>& table_order, bool correct,
                         const std::map<std::int32_t, StepFunction>* final_steps = nullptr) {
  Walked walked;
  if (final_steps != nullptr) walked.steps = *final_steps;
  auto steps = [&](std::size_t rank) -> StepFunction& {
    return walked.steps[static_cast<std::int32_t>(rank)];
  };
  auto corrected = [&](std::size_t rank, std::uint64_t t) { return t + steps(rank).at(t); };
  struct Stream {
    std::map<std::uint32_t, std::pair<std::uint64_t, std::uint64_t>> sends;  // by ordinal
    std::set<std::uint32_t> taken;
    std::uint32_t first = 0;  // the lowest ordinal not taken
    std::int64_t waiting = -1;
    std::uint32_t wanted = 0;
    bool given_up = false;
  };
  std::vector<Stream> state(table_order.size());
  std::vector<std::size_t> next(ranks.size(), 0);
  using Entry = std::pair<std::uint64_t, std::size_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> ready;
  auto push = [&](std::size_t r) {
    if (next[r] < ranks[r].size()) ready.emplace(corrected(r, ranks[r][next[r]].time_ns), r);
  };
  for (std::size_t r = 0; r < ranks.size(); ++r) push(r);
  for (;;) {
    while (!ready.empty()) {
      const std::size_t r = ready.top().second;
      ready.pop();
      const SpilledEndpoint& e = ranks[r][next[r]];
      Stream& s = state[e.stream];
      if (!s.given_up) {
        if (!e.receive()) {
          s.sends[e.ordinal()] = {e.time_ns, corrected(r, e.time_ns)};
          if (s.waiting >= 0 && s.sends.contains(s.wanted)) {
            push(static_cast<std::size_t>(s.waiting));
            s.waiting = -1;
          }
        } else if (e.ordinal() >= s.first) {
          if (!s.sends.contains(e.ordinal())) {
            s.waiting = static_cast<std::int64_t>(r);
            s.wanted = e.ordinal();
            continue;
          }
          const auto [sent, sent_corrected] = s.sends.at(e.ordinal());
          s.taken.insert(e.ordinal());
          while (s.taken.contains(s.first)) ++s.first;
          if (e.time_ns < sent) ++walked.before;
          const std::uint64_t received = corrected(r, e.time_ns);
          if (received < sent_corrected) {
            if (correct)
              steps(r).raise(e.time_ns, sent_corrected - received);
            else
              ++walked.after;
          }
        }
      }
      ++next[r];
      push(r);
    }
    std::int64_t earliest = -1;
    std::uint32_t earliest_stream = 0;
    for (const std::uint32_t s : table_order) {
      const std::int64_t w = state[s].waiting;
      if (w < 0) continue;
      const auto time = [&](std::int64_t r) {
        return ranks[static_cast<std::size_t>(r)][next[static_cast<std::size_t>(r)]].time_ns;
      };
      if (earliest < 0 || time(w) < time(earliest)) {
        earliest = w;
        earliest_stream = s;
      }
    }
    if (earliest < 0) break;
    state[earliest_stream] = Stream{};
    state[earliest_stream].given_up = true;
    walked.given_up.push_back(earliest_stream);
    push(static_cast<std::size_t>(earliest));
  }
  std::erase_if(walked.steps, [](const auto& entry) { return entry.second.max() == 0; });
  return walked;
}

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
  const StepFunction& one = *fixed.corrections.at(1);
  EXPECT_EQ(one.at(949), 0U);  // before the receive: untouched
  EXPECT_EQ(one.at(950), 50U);
  EXPECT_EQ(one.at(1100), 50U);
  const StepFunction& two = *fixed.corrections.at(2);
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
    EXPECT_EQ(copy.corrections.at(rank)->steps(), steps->steps());
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
  EXPECT_EQ(report.corrections.at(1)->at(450), 50U);
}

// Rank 1's threads post three receives from rank 0 on one stream. By their calls' starts the
// places are A, B, C, but A's thread was held up before posting: B's receive got the first
// message (sent at 1000, received at 1600), C's the second (2000 -> 2600), A's the third
// (3000 -> 5000). Paired by place, B and C end before their sends began.
std::vector<Message> held_up_thread(bool unordered) {
  return {{0, 1, 1000, 5000, 0, unordered},
          {0, 1, 2000, 1600, 1, unordered},
          {0, 1, 3000, 2600, 2, unordered}};
}

TEST(Causality, AThreadHeldUpBeforeItsPostIsPairedAsMpiDid) {
  HandSpill spill(held_up_thread(true), 2);
  spill.summary().sections[1].threaded = 1;
  const CausalityReport report = spill.check(true);
  EXPECT_EQ(report.messages, 3U);
  EXPECT_EQ(report.violations_before, 0U);
  EXPECT_EQ(report.violations_after, 0U);
  EXPECT_TRUE(report.corrections.empty());
  // B takes the first message, C the second, and A the third that C gave up.
  ASSERT_EQ(report.repaired.size(), 3U);
  std::map<std::uint32_t, std::uint32_t> message_of_place;
  for (const RepairedReceive& receive : report.repaired) {
    EXPECT_EQ(receive.stream, 0U);
    message_of_place[receive.place] = receive.message;
  }
  EXPECT_EQ(message_of_place, (std::map<std::uint32_t, std::uint32_t>{{0, 2}, {1, 0}, {2, 1}}));
  EXPECT_EQ(report.repaired_ranks, std::vector<std::int32_t>{1});
  EXPECT_TRUE(report.changes(1));
  EXPECT_FALSE(report.changes(0));
  // The exporters' flows follow: each receive place ends the flow of the message it met.
  const CausalityReport copy = CausalityReport::deserialize(report.serialize());
  StreamTable table(spill.summary().streams, {});
  for (const RepairedReceive& receive : copy.repaired)
    table.set_received_message(receive.stream, receive.place, receive.message);
  EXPECT_EQ(table.received_message(0, 0), 2U);
  EXPECT_EQ(table.received_message(0, 1), 0U);
  EXPECT_EQ(table.received_message(0, 2), 1U);
}

// Rank 1's threads post two receives from rank 0 whose calls overlap; by their starts the
// places are A, B, but B's thread posted first: B took the first message (sent at 100, its
// receive ended at 200) and A the second. Rank 1 then answers (300 -> 350), and only then
// does rank 0 send the second message (400 -> A at 500). Paired by place, B waits for a
// message rank 0 sends after it waits for rank 1's answer, which comes after B: each rank
// waits for the other.
std::vector<Message> crossed_receives(bool unordered) {
  return {{0, 1, 100, 200, 1, unordered}, {0, 1, 400, 500, 0, unordered}, {1, 0, 300, 350}};
}

TEST(Causality, ReceivesWaitingOnEachOtherAcrossRanksArePairedAsMpiDid) {
  HandSpill spill(crossed_receives(true), 2);
  spill.summary().sections[1].threaded = 1;
  const CausalityReport report = spill.check(true);
  EXPECT_TRUE(report.given_up.empty());
  EXPECT_EQ(report.messages, 3U);
  EXPECT_EQ(report.violations_before, 0U);
  EXPECT_TRUE(report.corrections.empty());
  std::map<std::uint32_t, std::uint32_t> message_of_place;
  for (const RepairedReceive& receive : report.repaired) {
    EXPECT_EQ(receive.stream, 0U);
    message_of_place[receive.place] = receive.message;
  }
  EXPECT_EQ(message_of_place, (std::map<std::uint32_t, std::uint32_t>{{0, 1}, {1, 0}}));
  EXPECT_EQ(report.repaired_ranks, std::vector<std::int32_t>{1});
}

TEST(Causality, CrossedReceivesWithAKnownOrderAreGivenUp) {
  // The same rows where the posts did not overlap, or on a rank of one thread: the places
  // are what MPI used, so the rows contradict themselves and the stream is given up.
  for (const bool threaded : {true, false}) {
    HandSpill spill(crossed_receives(!threaded), 2);
    spill.summary().sections[1].threaded = threaded ? 1 : 0;
    const CausalityReport report = spill.check(true);
    EXPECT_EQ(report.given_up.size(), 1U);
    EXPECT_EQ(report.messages, 1U);
    EXPECT_TRUE(report.repaired.empty());
  }
}

TEST(Causality, ReceivesWithAKnownOrderAreNotRepairedButCorrected) {
  // The same rows where the posts did not overlap (so their order is known), or where the
  // rank has one thread: the places stand, the violations are counted and corrected.
  for (const bool threaded : {true, false}) {
    HandSpill spill(held_up_thread(!threaded), 2);
    spill.summary().sections[1].threaded = threaded ? 1 : 0;
    const CausalityReport report = spill.check(true);
    EXPECT_EQ(report.violations_before, 2U);
    EXPECT_EQ(report.violations_after, 0U);
    EXPECT_TRUE(report.repaired.empty());
    EXPECT_EQ(report.max_shift_ns, 400U);  // C's receive, moved from 2600 to 3000
  }
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

TEST(Causality, ASendMovedByALaterRaiseOfItsRankIsCheckedAgain) {
  // Rank 1 sends to rank 2 and, at the same instant, receives from rank 0 a message sent
  // 100 ns later: the correction moves rank 1 forward by 100 from that instant, its send
  // included, after rank 2's receive 10 ns past the send was found in order. Rank 2 is
  // then 90 ns early: left after the correction (it moves ranks forward from receives only),
  // and counted. Each message comes once more, later and in order, which nothing moves.
  const HandSpill spill(
      {{1, 2, 1000, 1010}, {0, 1, 1100, 1000}, {1, 2, 5000, 5500}, {0, 1, 6000, 6500}}, 3);
  const CausalityReport report = spill.check(true);
  EXPECT_EQ(report.violations_before, 1U);
  EXPECT_EQ(report.violations_after, 1U);
  ASSERT_TRUE(report.corrections.contains(1));
  EXPECT_EQ(report.corrections.at(1)->at(1000), 100U);
  EXPECT_FALSE(report.corrections.contains(2));
}

// `count` random messages between `ranks` ranks (each stream's receives in their posted
// order), a quarter of them received up to 250 ns before they were sent.
std::vector<Message> random_messages(std::mt19937& random, std::int32_t ranks, std::size_t count) {
  std::vector<std::uint64_t> clock(static_cast<std::size_t>(ranks), 1000);
  std::vector<Message> messages;
  std::map<std::pair<std::int32_t, std::int32_t>, std::int64_t> per_stream;
  for (std::size_t m = 0; m < count; ++m) {
    const auto from = static_cast<std::int32_t>(random() % static_cast<unsigned>(ranks));
    auto to = static_cast<std::int32_t>(random() % static_cast<unsigned>(ranks - 1));
    if (to >= from) ++to;
    auto& sender = clock[static_cast<std::size_t>(from)];
    auto& receiver = clock[static_cast<std::size_t>(to)];
    sender += 10 + random() % 1000;
    const std::uint64_t received = std::max(receiver + 10, sender + 50 + random() % 500) -
                                   (random() % 4 == 0 ? random() % 250 : 0);
    receiver = std::max(receiver, received);
    std::int64_t& ordinal = per_stream[{from, to}];
    messages.push_back({from, to, sender, received, ordinal++});
  }
  return messages;
}

TEST(Causality, FindsWhatAWalkInTimeOrderFinds) {
  // Random message patterns between a few ranks: receives that end before their send (by up
  // to 200 ns), receives completed out of their posted order, neighbouring endpoints swapped
  // (records of several threads), so that some streams contradict themselves.
  std::mt19937 random(12345);
  int with_violations = 0;
  int with_given_up = 0;
  int left_after_correction = 0;  // sends moved after their receive was checked (stale)
  for (int pattern = 0; pattern < 60; ++pattern) {
    const auto ranks = static_cast<std::int32_t>(2 + random() % 10);
    std::vector<Message> messages = random_messages(random, ranks, 20 + random() % 400);
    // Some neighbouring messages of a stream complete in the other's posted place.
    for (std::size_t m = 1; m < messages.size(); ++m)
      if (random() % 10 == 0)
        for (std::size_t n = m; n-- > 0;)
          if (messages[n].from == messages[m].from && messages[n].to == messages[m].to) {
            std::swap(messages[n].receive_ordinal, messages[m].receive_ordinal);
            break;
          }
    std::mt19937 shuffle(static_cast<std::mt19937::result_type>(pattern));
    const HandSpill spill(messages, ranks, pattern % 2 == 0 ? &shuffle : nullptr);
    for (const bool correct : {false, true}) {
      SCOPED_TRACE(testing::Message() << "pattern " << pattern << " correct " << correct);
      const CausalityReport report = spill.check(correct);
      const StreamTable table(spill.summary().streams, {});
      std::vector<std::uint32_t> table_order(spill.summary().streams.size());
      for (std::uint32_t s = 0; s < table_order.size(); ++s)
        table_order[*table.find(spill.summary().streams[s].key)] = s;
      const Walked first = time_ordered_walk(spill.by_rank(), table_order, correct);
      EXPECT_EQ(report.violations_before, first.before);
      std::vector<std::uint32_t> given_up;
      for (const std::uint32_t s : first.given_up)
        given_up.push_back(*table.find(spill.summary().streams[s].key));
      EXPECT_EQ(report.given_up, given_up);
      ASSERT_EQ(report.corrections.size(), first.steps.size());
      for (const auto& [rank, function] : first.steps) {
        ASSERT_TRUE(report.corrections.contains(rank)) << "rank " << rank;
        EXPECT_EQ(report.corrections.at(rank)->steps(), function.steps()) << "rank " << rank;
      }
      const std::uint64_t after =
          correct && !first.steps.empty()
              ? time_ordered_walk(spill.by_rank(), table_order, false, &first.steps).after
              : first.after;
      EXPECT_EQ(report.violations_after, after);
      left_after_correction += correct && after > 0 ? 1 : 0;
      with_violations += first.before > 0 ? 1 : 0;
      with_given_up += first.given_up.empty() ? 0 : 1;
    }
  }
  // The patterns reach what they are meant to.
  EXPECT_GT(with_violations, 40);
  EXPECT_GT(with_given_up, 4);
  EXPECT_GT(left_after_correction, 0);
}

TEST(Causality, SpillsOfProcessesLeftOutGoToTheLeastLoadedWalker) {
  // Spills of 10, 40, 30, 20 and 5 endpoints; processes 0 and 1 wrote the first and third.
  std::vector<SpillSummary> spills(5);
  const std::uint64_t sizes[] = {10, 40, 30, 20, 5};
  for (std::size_t s = 0; s < spills.size(); ++s)
    spills[s].sections.push_back({static_cast<std::int32_t>(s), 0, 0, sizes[s]});
  // Its own to each writer (10, 30), then the largest first: 40 to 0 (50), 20 to 1 (50), 5
  // to the lower place of a tie.
  EXPECT_EQ(spill_walkers(spills, {0, -1, 1, -1, -1}, 2),
            (std::vector<std::uint32_t>{0, 0, 1, 1, 0}));
  EXPECT_EQ(spill_walkers(spills, {0, 1, 2, 3, 4}, 5), (std::vector<std::uint32_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(spill_walkers(spills, {-1, -1, -1, -1, -1}, 1),
            (std::vector<std::uint32_t>{0, 0, 0, 0, 0}));
}

TEST(Causality, ProcessesSharingTheWalkFindWhatOneFinds) {
  // Random patterns as above, some with threaded ranks whose receives were completed out of
  // their posted order (repaired), walked by 2, 3 and 5 processes (threads, each with a
  // block of the ranks): every process gets the report one process computes.
  std::mt19937 random(777);
  int repaired = 0;
  int with_given_up = 0;
  int corrected = 0;
  for (int pattern = 0; pattern < 40; ++pattern) {
    const auto ranks = static_cast<std::int32_t>(2 + random() % 12);
    std::vector<Message> messages = random_messages(random, ranks, 20 + random() % 600);
    // Out of their posted order; on a threaded rank, unordered (their posts overlapped).
    const bool threads = pattern % 3 == 0;
    std::set<std::int32_t> threaded;
    for (std::size_t m = 1; m < messages.size(); ++m)
      if (random() % 10 == 0)
        for (std::size_t n = m; n-- > 0;)
          if (messages[n].from == messages[m].from && messages[n].to == messages[m].to) {
            std::swap(messages[n].receive_ordinal, messages[m].receive_ordinal);
            if (threads) {
              messages[n].unordered = messages[m].unordered = true;
              threaded.insert(messages[m].to);
            }
            break;
          }
    std::mt19937 shuffle(static_cast<std::mt19937::result_type>(pattern));
    const HandSpill spill(messages, ranks, pattern % 2 == 0 ? &shuffle : nullptr, threaded);
    for (const bool correct : {false, true}) {
      const CausalityReport alone = spill.check(correct);
      repaired += alone.repaired.empty() ? 0 : 1;
      with_given_up += alone.given_up.empty() ? 0 : 1;
      corrected += alone.corrections.empty() ? 0 : 1;
      // A spill per process; and 5 spills of which 2 processes wrote 2 and walk all (the
      // others' processes left out of the merge).
      const std::vector<std::pair<std::size_t, std::vector<int>>> cases = {
          {2, {0, 1}}, {3, {0, 1, 2}}, {5, {0, 1, 2, 3, 4}}, {2, {0, -1, 1, -1, -1}}};
      for (const auto& [processes, places] : cases) {
        SCOPED_TRACE(testing::Message()
                     << "pattern " << pattern << " correct " << correct << " processes "
                     << processes << " spills " << places.size());
        const std::vector<SpillSummary> spills = spill.split(places.size());
        const std::vector<std::uint32_t> walkers = spill_walkers(spills, places, processes);
        std::vector<StreamCount> counts;
        for (const SpillSummary& each : spills)
          counts.insert(counts.end(), each.streams.begin(), each.streams.end());
        const StreamTable table(counts, {});
        ThreadExchange::Meeting meeting(processes);
        std::vector<CausalityReport> reports(processes);
        std::vector<std::thread> threads;
        for (std::size_t p = 0; p < processes; ++p)
          threads.emplace_back([&, p] {
            reports[p] =
                check_causality(spills, table, correct, ThreadExchange(meeting, p), walkers);
          });
        for (std::thread& thread : threads) thread.join();
        for (const CausalityReport& report : reports) {
          EXPECT_EQ(report.serialize(), alone.serialize());
          EXPECT_EQ(report.messages, alone.messages);
          EXPECT_EQ(report.violations_after, alone.violations_after);
        }
      }
    }
  }
  // The patterns reach what they are meant to.
  EXPECT_GT(repaired, 2);
  EXPECT_GT(with_given_up, 2);
  EXPECT_GT(corrected, 10);
}

}  // namespace
}  // namespace rocprof::merge
