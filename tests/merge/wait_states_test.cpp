// The wait-state analysis on hand-made rank inputs: each pattern's waiting time, the rank
// waited for, what it was doing and the waiting call's regions, known exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <barrier>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "merge/analysis/analysis_exchange.hpp"
#include "merge/analysis/critical_path.hpp"
#include "merge/analysis/end_spill.hpp"
#include "merge/analysis/found_wait.hpp"
#include "merge/analysis/nested_exchange.hpp"
#include "merge/analysis/wait_states.hpp"
#include "merge/events/mpi_call_rows.hpp"
#include "tests/tools/test_dir.hpp"
#include "tests/tools/thread_exchange.hpp"

namespace rocprof::merge {
namespace {

namespace fs = std::filesystem;

// A rank's input, built call by call.
class Rank {
 public:
  explicit Rank(std::int32_t rank) { input_.rank = rank; }
  std::uint32_t name(const std::string& text) {
    for (std::uint32_t i = 0; i < input_.names.size(); ++i)
      if (input_.names[i] == text) return i;
    input_.names.push_back(text);
    return static_cast<std::uint32_t>(input_.names.size() - 1);
  }
  // A send to rank `to`.
  Rank& send(std::uint64_t flow, const std::string& function, std::uint64_t begin,
             std::uint64_t end, std::int32_t to) {
    input_.messages.push_back({flow, begin, end, static_cast<std::uint64_t>(to), 1,
                               function_name(function),
                               static_cast<std::uint8_t>(mpi_call_kind(function)), 1});
    return call(function, begin, end);
  }
  // A receive completed by `function` in [begin, end), posted at `posted`.
  Rank& receive(std::uint64_t flow, const std::string& function, std::uint64_t begin,
                std::uint64_t end, std::uint64_t posted) {
    input_.messages.push_back({flow, begin, end, posted, 1, function_name(function),
                               static_cast<std::uint8_t>(mpi_call_kind(function)), 0});
    return call(function, begin, end);
  }
  Rank& collective(const std::string& function, std::uint64_t begin, std::uint64_t end,
                   std::int32_t root = -1, std::uint64_t communicator = 1) {
    input_.collectives.push_back({communicator, begin, end, sequences_[communicator]++, root, 1,
                                  function_name(function), collective_kind(function)});
    return call(function, begin, end);
  }
  Rank& doing(DoingKind kind, const std::string& what, std::uint64_t begin, std::uint64_t end,
              std::uint32_t lane) {
    // In doing_order, as the merge's gatherer leaves them.
    const Doing added(begin, end, name(what), lane, kind);
    input_.doings.insert(
        std::upper_bound(input_.doings.begin(), input_.doings.end(), added, doing_order), added);
    return *this;
  }
  // A region on thread 1 at `level` (lane 100 + level).
  Rank& region(const std::string& what, std::uint64_t begin, std::uint64_t end,
               std::uint32_t level = 0) {
    const std::uint32_t lane = 100 + level;
    bool known = false;
    for (const auto& region : input_.region_lanes) known = known || region.lane == lane;
    if (!known) input_.region_lanes.push_back({lane, 1, level});
    return doing(DoingKind::kRegion, what, begin, end, lane);
  }
  const RankWaitInput& input() const { return input_; }
  std::vector<MessageEnd>& messages() { return input_.messages; }
  std::uint16_t function_name(const std::string& text) {
    return static_cast<std::uint16_t>(name(text));
  }

 private:
  Rank& call(const std::string& function, std::uint64_t begin, std::uint64_t end) {
    return doing(DoingKind::kMpiCall, function, begin, end, 1);
  }
  RankWaitInput input_;
  std::map<std::uint64_t, std::uint32_t> sequences_;  // by communicator
};

WaitStateReport analyse(const std::vector<Rank>& ranks) {
  std::vector<RankWaitInput> inputs;
  inputs.reserve(ranks.size());
  for (const Rank& rank : ranks) inputs.push_back(rank.input());
  return analyse_wait_states(inputs);
}

using Key = WaitStateReport::Key;

TEST(WaitStates, ALateSenderIsBlamedOnWhatTheSenderDidBeforeSending) {
  Rank sender(0);
  Rank receiver(1);
  // The receiver enters MPI_Recv at 1000; the sender computes in a region, runs a kernel
  // from 500 to 4000 waited for by a synchronisation, and sends at 5000.
  sender.region("solve", 0, 9000)
      .region("compute", 100, 4900, 1)
      .doing(DoingKind::kGpuWork, "kernel stencil", 500, 4000, 7)
      .doing(DoingKind::kApiCall, "hipDeviceSynchronize", 600, 4100, 1)
      .send(1, "MPI_Send", 5000, 5200, 1);
  receiver.region("solve", 0, 9000)
      .region("halo", 900, 6000, 1)
      .receive(1, "MPI_Recv", 1000, 5500, 1000);
  const WaitStateReport report = analyse({sender, receiver});
  ASSERT_EQ(report.waits.size(), 1U);
  const auto& [key, total] = *report.waits.begin();
  EXPECT_EQ(key,
            (Key{WaitPattern::kLateSender, 1, "solve > halo", "MPI_Recv", 0, "kernel stencil"}));
  EXPECT_EQ(total.count, 1U);
  EXPECT_EQ(total.total_ns, 4000);
}

TEST(WaitStates, TheCauseIsTheAwaitedRanksMpiCallThenGpuWorkThenApiCallThenInnermostRegion) {
  // The awaited rank during [1000, 2000): each case covers it with one more kind.
  auto cause_of = [](auto add) {
    Rank sender(0);
    Rank receiver(1);
    add(sender);
    sender.send(1, "MPI_Send", 2000, 2100, 1);
    receiver.receive(1, "MPI_Recv", 1000, 2500, 1000);
    const WaitStateReport report = analyse({sender, receiver});
    return report.waits.empty() ? std::string("none") : std::get<5>(report.waits.begin()->first);
  };
  EXPECT_EQ(cause_of([](Rank&) {}), "(host work no tracer saw)");
  // The tool's own clock synchronisation is named as the tool's.
  EXPECT_EQ(cause_of([](Rank& r) {
              r.doing(DoingKind::kMpiCall, "rocprof_mpi_clock_sync", 900, 2000, 1);
            }),
            "rocprof_mpi_clock_sync (rocprof-mpi itself, not the application)");
  EXPECT_EQ(cause_of([](Rank& r) { r.region("outer", 0, 3000).region("inner", 900, 1900, 1); }),
            "region inner");
  EXPECT_EQ(cause_of([](Rank& r) {
              r.region("inner", 900, 1900).doing(DoingKind::kApiCall, "cudaMemcpy", 1000, 2000, 1);
            }),
            "cudaMemcpy");
  EXPECT_EQ(cause_of([](Rank& r) {
              r.doing(DoingKind::kApiCall, "cudaMemcpy", 1000, 2000, 1)
                  .doing(DoingKind::kGpuWork, "memcpy HtoD", 1000, 1900, 9);
            }),
            "memcpy HtoD");
  EXPECT_EQ(cause_of([](Rank& r) {
              r.doing(DoingKind::kGpuWork, "kernel k", 1000, 2000, 9)
                  .doing(DoingKind::kMpiCall, "MPI_Wait", 1000, 1800, 1);
            }),
            "MPI_Wait");
  // Less than half the wait covered by anything: what covered most.
  EXPECT_EQ(cause_of([](Rank& r) {
              r.region("short", 1000, 1300).doing(DoingKind::kGpuWork, "kernel k", 1500, 1900, 9);
            }),
            "kernel k");
}

TEST(WaitStates, AWaitallWaitsForItsLatestSenderOnly) {
  Rank first(0);
  Rank second(2);
  Rank receiver(1);
  first.send(1, "MPI_Isend", 3000, 3100, 1);
  second.send(2, "MPI_Isend", 6000, 6100, 1);
  // Both receives posted at 100, completed by one MPI_Waitall entered at 1000.
  receiver.receive(1, "MPI_Waitall", 1000, 7000, 100).receive(2, "MPI_Waitall", 1000, 7000, 100);
  const WaitStateReport report = analyse({first, second, receiver});
  ASSERT_EQ(report.waits.size(), 1U);
  EXPECT_EQ(std::get<4>(report.waits.begin()->first), 2);
  EXPECT_EQ(report.waits.begin()->second.total_ns, 5000);
  // A receive that completes without waiting (its send began before): none.
  Rank early(0);
  Rank on_time(1);
  early.send(1, "MPI_Send", 100, 200, 1);
  on_time.receive(1, "MPI_Recv", 1000, 1100, 1000);
  EXPECT_TRUE(analyse({early, on_time}).empty());
}

TEST(WaitStates, ALateReceiverIsABlockingSendThatWaitedForThePost) {
  Rank sender(0);
  Rank receiver(1);
  // A synchronous send from 1000 that returns at 4200, after the receive posted at 4000.
  sender.send(1, "MPI_Ssend", 1000, 4200, 1);
  receiver.region("io", 0, 4000).receive(1, "MPI_Recv", 4000, 4300, 4000);
  WaitStateReport report = analyse({sender, receiver});
  ASSERT_EQ(report.waits.size(), 1U);
  EXPECT_EQ(report.waits.begin()->first,
            (Key{WaitPattern::kLateReceiver, 0, "", "MPI_Ssend", 1, "region io"}));
  EXPECT_EQ(report.waits.begin()->second.total_ns, 3000);
  // An eager send returns before the receive is posted: it did not wait.
  Rank eager(0);
  Rank later(1);
  eager.send(1, "MPI_Send", 1000, 1200, 1);
  later.receive(1, "MPI_Recv", 4000, 4300, 4000);
  EXPECT_TRUE(analyse({eager, later}).empty());
}

TEST(WaitStates, CollectivesWaitByTheirKind) {
  // Three ranks; rank 2 enters every collective last (at 5000), the others at 1000 and 2000.
  std::vector<Rank> ranks{Rank(0), Rank(1), Rank(2)};
  const std::uint64_t begin[] = {1000, 2000, 5000};
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    ranks[r].collective("MPI_Allreduce", begin[r], 6000);
    ranks[r].collective("MPI_Barrier", 10000 + begin[r], 16000);
    ranks[r].collective("MPI_Bcast", 20000 + begin[r], 26000, 2);   // root 2, entering last
    ranks[r].collective("MPI_Reduce", 30000 + begin[r], 36000, 0);  // root 0, entering first
    ranks[r].collective("MPI_Gather", 40000 + begin[r], 46000, 2);  // root 2: none waits
    ranks[r].collective("MPI_Scan", 50000 + begin[r], 56000);       // not analysed
  }
  const WaitStateReport report = analyse(ranks);
  const auto patterns = report.by_pattern();
  auto total = [&](WaitPattern p) { return patterns[static_cast<std::size_t>(p)].total_ns; };
  auto count = [&](WaitPattern p) { return patterns[static_cast<std::size_t>(p)].count; };
  EXPECT_EQ(total(WaitPattern::kWaitAtNxN), 4000 + 3000);
  EXPECT_EQ(count(WaitPattern::kWaitAtNxN), 2U);
  EXPECT_EQ(total(WaitPattern::kWaitAtBarrier), 4000 + 3000);
  EXPECT_EQ(total(WaitPattern::kLateBroadcast), 4000 + 3000);
  EXPECT_EQ(total(WaitPattern::kEarlyReduce), 4000);  // the root waits for rank 2
  EXPECT_EQ(count(WaitPattern::kEarlyReduce), 1U);
  EXPECT_EQ(total(WaitPattern::kLateSender), 0);
  for (const auto& [key, totals] : report.waits) EXPECT_EQ(std::get<4>(key), 2);  // awaited
  const auto per_rank = report.by_rank();
  EXPECT_FALSE(per_rank.contains(2));  // the last to enter waits for no one
  EXPECT_EQ(per_rank.at(0)[static_cast<std::size_t>(WaitPattern::kEarlyReduce)], 4000);
}

TEST(WaitStates, CollectivesWhoseRanksDisagreeAreCountedNotAnalysed) {
  Rank a(0);
  Rank b(1);
  a.collective("MPI_Allreduce", 1000, 5000);
  b.collective("MPI_Barrier", 3000, 5000);
  const WaitStateReport report = analyse({a, b});
  EXPECT_TRUE(report.empty());
  EXPECT_EQ(report.mismatched_collectives, 1U);
  // Communicators apart: each instance on its own.
  Rank c(0);
  Rank d(1);
  c.collective("MPI_Barrier", 1000, 5000, -1, 1).collective("MPI_Barrier", 6000, 9000, -1, 2);
  d.collective("MPI_Barrier", 7000, 9000, -1, 2).collective("MPI_Barrier", 2000, 5000, -1, 1);
  const WaitStateReport apart = analyse({c, d});
  EXPECT_EQ(apart.by_pattern()[static_cast<std::size_t>(WaitPattern::kWaitAtBarrier)].total_ns,
            1000 + 1000);
}

TEST(WaitStates, DamagedInputsAreRefusedNotAllocated) {
  // A collective numbered far past the calls there are (damage: ranks number a
  // communicator's collectives from 0) is refused rather than sized for.
  Rank a(0);
  Rank b(1);
  a.collective("MPI_Barrier", 0, 100);
  b.collective("MPI_Barrier", 50, 100);
  std::vector<RankWaitInput> far{a.input(), b.input()};
  far[1].collectives[0].sequence = 4'000'000'000U;
  EXPECT_THROW(analyse_wait_states(far), std::runtime_error);
  // A message end whose function is not among its rank's names.
  Rank c(0);
  c.send(1, "MPI_Send", 10, 20, 1);
  std::vector<RankWaitInput> unnamed{c.input()};
  unnamed[0].messages[0].function = 99;
  EXPECT_THROW(analyse_wait_states(unnamed), std::out_of_range);
}

TEST(WaitStates, ARanksInputCrossesMergeProcessesUnchanged) {
  Rank rank(3);
  rank.region("solve", 0, 100).send(9, "MPI_Send", 10, 20, 0).collective("MPI_Bcast", 30, 40, 0);
  ByteWriter out;
  rank.input().put(out);
  const std::vector<std::byte> bytes = out.take();
  ByteReader in(bytes);
  const RankWaitInput copy = RankWaitInput::get(in);
  EXPECT_TRUE(in.done());
  EXPECT_EQ(copy.rank, 3);
  EXPECT_EQ(copy.names, rank.input().names);
  ASSERT_EQ(copy.messages.size(), 1U);
  EXPECT_EQ(copy.messages[0].flow, 9U);
  ASSERT_EQ(copy.collectives.size(), 1U);
  EXPECT_EQ(copy.collectives[0].kind, CollectiveKind::kOneToN);
  EXPECT_EQ(copy.doings.size(), rank.input().doings.size());
  EXPECT_EQ(copy.region_lanes.size(), 1U);
  // A name index past the names: refused.
  RankWaitInput bad = rank.input();
  bad.doings[0].name = 99;
  ByteWriter bad_out;
  bad.put(bad_out);
  const std::vector<std::byte> bad_bytes = bad_out.take();
  ByteReader bad_in(bad_bytes);
  EXPECT_THROW(RankWaitInput::get(bad_in), std::runtime_error);
  // Doings out of their order (the analysis searches them by lane and time): refused.
  RankWaitInput unordered = rank.input();
  ASSERT_GE(unordered.doings.size(), 2U);
  std::swap(unordered.doings.front(), unordered.doings.back());
  ByteWriter unordered_out;
  unordered.put(unordered_out);
  const std::vector<std::byte> unordered_bytes = unordered_out.take();
  ByteReader unordered_in(unordered_bytes);
  EXPECT_THROW(RankWaitInput::get(unordered_in), std::runtime_error);
}

TEST(WaitStates, TheCsvHasARowPerWaitKey) {
  Rank sender(0);
  Rank receiver(1);
  sender.region("say \"hi\"", 0, 3000).send(1, "MPI_Send", 2000, 2100, 1);
  receiver.receive(1, "MPI_Recv", 1000, 2500, 1000);
  const WaitStateReport report = analyse({sender, receiver});
  const std::string prefix =
      (std::filesystem::temp_directory_path() / ("wait_states_test." + std::to_string(::getpid())))
          .string();
  std::string error;
  ASSERT_TRUE(report.write_csv(prefix, error)) << error;
  std::ifstream file(prefix + "_waits.csv");
  std::stringstream text;
  text << file.rdbuf();
  std::filesystem::remove(prefix + "_waits.csv");
  EXPECT_EQ(text.str(),
            "pattern,rank,call_path,function,awaited_rank,cause,count,total_ns\n"
            "late sender,1,\"\",MPI_Recv,0,\"region say \"\"hi\"\"\",1,1000\n");
  EXPECT_FALSE(report.write_csv("/nonexistent/dir/x", error));
  EXPECT_NE(error.find("/nonexistent/dir/x_waits.csv"), std::string::npos) << error;
}

TEST(CriticalPath, WalksBackThroughEachWaitToTheRankWaitedFor) {
  // Rank 1 computes (a region, a kernel from 2000 to 8000 waited for by a synchronisation)
  // and sends at 9000; rank 0 waits for it in MPI_Recv from 1000, then computes until 12000;
  // rank 2 ends first, at 5000.
  Rank zero(0);
  Rank one(1);
  Rank two(2);
  one.region("step", 0, 9000)
      .doing(DoingKind::kGpuWork, "kernel big", 2000, 8000, 7)
      .doing(DoingKind::kApiCall, "hipDeviceSynchronize", 1500, 8100, 1)
      .send(1, "MPI_Send", 9000, 9200, 0);
  zero.region("solve", 0, 12000).receive(1, "MPI_Recv", 1000, 9500, 1000);
  two.region("idle", 0, 5000);
  const std::vector<Rank> ranks{zero, one, two};
  std::vector<RankWaitInput> inputs;
  for (const Rank& rank : ranks) inputs.push_back(rank.input());
  const WaitStateReport waits = analyse_wait_states(inputs);
  ASSERT_EQ(waits.edges.size(), 1U);
  const CriticalPath path =
      find_critical_path(inputs, waits, {{0, {0, 12000}}, {1, {0, 9200}}, {2, {0, 5000}}});
  // Rank 0 from 9000 (its wait's end) to 12000, then rank 1 from its start to 9000.
  ASSERT_EQ(path.stretches.size(), 2U);
  EXPECT_EQ(path.stretches[0].rank, 0);
  EXPECT_EQ(path.stretches[0].from, 9000U);
  EXPECT_EQ(path.stretches[1].rank, 1);
  EXPECT_EQ(path.stretches[1].to, 9000U);
  EXPECT_EQ(path.length_ns, 12000);
  EXPECT_EQ(path.by_rank, (std::map<std::int32_t, double>{{0, 3000}, {1, 9000}}));
  // Rank 0: MPI_Recv 9000-9500, then its region; rank 1: region, the synchronisation around
  // the kernel, the kernel itself.
  EXPECT_EQ(path.by_activity, (std::map<std::string, double>{{"MPI_Recv", 500},
                                                             {"region solve", 2500},
                                                             {"region step", 1500 + 900},
                                                             {"hipDeviceSynchronize", 500 + 100},
                                                             {"kernel big", 6000}}));
  EXPECT_EQ(path.activities().front().first, "kernel big");
  // No waits: the last rank alone.
  const CriticalPath alone = find_critical_path(inputs, WaitStateReport{}, {{2, {100, 5000}}});
  ASSERT_EQ(alone.stretches.size(), 1U);
  EXPECT_EQ(alone.length_ns, 4900);
  EXPECT_TRUE(find_critical_path(inputs, waits, {}).empty());
}

// A random job: ranks exchanging messages (blocking and not, a wait completing several)
// and calling collectives, with regions, API calls and kernels around them. A `late` rank
// works longer each step, so that the others mostly wait for it.
std::vector<Rank> random_job(std::uint32_t seed, std::int32_t ranks, std::int32_t late = -1) {
  std::mt19937_64 random(seed);
  auto draw = [&](std::uint64_t below) { return random() % below; };
  std::vector<Rank> job;
  for (std::int32_t r = 0; r < ranks; ++r) job.emplace_back(r);
  std::vector<std::uint64_t> now(static_cast<std::size_t>(ranks), 0);
  std::uint64_t flow = 1;
  const char* const collectives[] = {"MPI_Allreduce", "MPI_Barrier", "MPI_Bcast", "MPI_Reduce"};
  for (int step = 0; step < 200; ++step) {
    for (std::int32_t r = 0; r < ranks; ++r) {
      Rank& rank = job[static_cast<std::size_t>(r)];
      std::uint64_t& t = now[static_cast<std::size_t>(r)];
      const std::uint64_t work = 1000 + draw(20000) + (r == late ? 40000 : 0);
      rank.region("step", t, t + work);
      if (draw(2) == 0) rank.doing(DoingKind::kGpuWork, "kernel k", t + 10, t + work / 2, 7);
      if (draw(3) == 0) rank.doing(DoingKind::kApiCall, "cudaMemcpy", t + 5, t + work / 3, 1);
      t += work;
    }
    if (draw(3) == 0) {  // a collective on every rank
      const char* function = collectives[draw(4)];
      std::uint64_t latest = 0;
      for (const std::uint64_t t : now) latest = std::max(latest, t);
      for (std::int32_t r = 0; r < ranks; ++r) {
        std::uint64_t& t = now[static_cast<std::size_t>(r)];
        const std::uint64_t end = latest + 100 + draw(50);
        job[static_cast<std::size_t>(r)].collective(function, t, end, 0);
        t = end + 1;
      }
      continue;
    }
    // Messages: each rank sends to the next, received by MPI_Recv or a shared MPI_Waitall.
    for (std::int32_t r = 0; r < ranks; ++r) {
      const std::int32_t to = (r + 1) % ranks;
      const std::uint64_t send_at = now[static_cast<std::size_t>(r)];
      const bool blocking = draw(2) == 0;
      job[static_cast<std::size_t>(r)].send(flow + static_cast<std::uint64_t>(r),
                                            blocking ? "MPI_Ssend" : "MPI_Isend", send_at,
                                            send_at + 50, to);
      now[static_cast<std::size_t>(r)] = send_at + 51;
    }
    for (std::int32_t r = 0; r < ranks; ++r) {
      const std::int32_t from = (r + ranks - 1) % ranks;
      std::uint64_t& t = now[static_cast<std::size_t>(r)];
      const std::uint64_t sent = now[static_cast<std::size_t>(from)];
      const std::uint64_t end = std::max(t, sent) + 30 + draw(40);
      job[static_cast<std::size_t>(r)].receive(flow + static_cast<std::uint64_t>(from),
                                               draw(2) == 0 ? "MPI_Recv" : "MPI_Waitall", t, end,
                                               t - draw(std::min<std::uint64_t>(t, 500)));
      t = end + 1;
    }
    flow += static_cast<std::uint64_t>(ranks);
  }
  return job;
}

// The input with its ends and calls spilled a few at a time (blocks of up to `block` items),
// the last few left in memory, as a gatherer past its budget leaves them.
RankWaitInput spilled(RankWaitInput input, const std::shared_ptr<EndSpill>& spill,
                      std::size_t block) {
  const auto spill_in_blocks = [&](auto& items, std::vector<SpilledBlock>& blocks) {
    using Item = typename std::decay_t<decltype(items)>::value_type;
    std::vector<Item> all = std::move(items);
    items.clear();
    std::size_t at = 0;
    for (; at + block < all.size(); at += block) {
      std::vector<Item> piece(all.begin() + static_cast<std::ptrdiff_t>(at),
                              all.begin() + static_cast<std::ptrdiff_t>(at + block));
      blocks.push_back(spill->spill(piece, [](const Item& item) { return slice_of(item); }));
    }
    items.assign(all.begin() + static_cast<std::ptrdiff_t>(at), all.end());
  };
  spill_in_blocks(input.messages, input.spilled_messages);
  spill_in_blocks(input.collectives, input.spilled_collectives);
  input.spill = spill;
  input.message_names = static_cast<std::uint32_t>(input.names.size());
  return input;
}

// What `processes` merge processes find, each holding a block of the ranks; with a spill,
// their ends and calls spilled and taken in rounds of about `round_bytes`.
std::pair<WaitStateReport, CriticalPath> analysed_by(
    const std::vector<Rank>& job, std::size_t processes,
    const std::shared_ptr<EndSpill>& spill = nullptr, std::size_t round_bytes = kAnalysisMemory) {
  RankSpans spans;
  for (const Rank& rank : job) {
    const auto& doings = rank.input().doings;
    std::uint64_t first = UINT64_MAX;
    std::uint64_t last = 0;
    for (const Doing& doing : doings) {
      first = std::min(first, doing.begin_ns);
      last = std::max(last, doing.end_ns);
    }
    spans[rank.input().rank] = {first, last};
  }
  ThreadExchange::Meeting meeting(processes);
  std::pair<WaitStateReport, CriticalPath> result;
  std::vector<std::thread> threads;
  for (std::size_t p = 0; p < processes; ++p)
    threads.emplace_back([&, p] {
      std::vector<RankWaitInput> mine;
      for (std::size_t r = p * job.size() / processes; r < (p + 1) * job.size() / processes; ++r)
        mine.push_back(spill ? spilled(job[r].input(), spill, 5 + r) : job[r].input());
      const ThreadExchange exchange(meeting, p);
      // Consumes its ends and calls.
      WaitStateReport waits = analyse_wait_states(mine, exchange, {}, round_bytes);
      CriticalPath path = find_critical_path(mine, waits, p == 0 ? spans : RankSpans{}, exchange);
      if (p == 0) result = {std::move(waits), std::move(path)};
    });
  for (std::thread& thread : threads) thread.join();
  return result;
}

// What merge processes of `threads[p]` analysis threads each find (NestedExchange over
// processes simulated by threads), each process holding a block of the ranks and each of its
// threads a block of those; rounds of about `round_bytes` a thread.
std::pair<WaitStateReport, CriticalPath> analysed_by_threads(
    const std::vector<Rank>& job, const std::vector<std::size_t>& threads,
    std::size_t round_bytes) {
  RankSpans spans;
  for (const Rank& rank : job) {
    std::uint64_t first = UINT64_MAX;
    std::uint64_t last = 0;
    for (const Doing& doing : rank.input().doings) {
      first = std::min(first, doing.begin_ns);
      last = std::max(last, doing.end_ns);
    }
    spans[rank.input().rank] = {first, last};
  }
  const std::size_t processes = threads.size();
  ThreadExchange::Meeting outer_meeting(processes);
  std::pair<WaitStateReport, CriticalPath> result;
  std::vector<std::thread> process_threads;
  for (std::size_t p = 0; p < processes; ++p)
    process_threads.emplace_back([&, p] {
      const std::size_t first = p * job.size() / processes;
      const std::size_t count = (p + 1) * job.size() / processes - first;
      const ThreadExchange outer(outer_meeting, p);
      NestedExchange::Meeting meeting(outer, threads[p]);
      std::vector<std::thread> workers;
      for (std::size_t t = 0; t < threads[p]; ++t)
        workers.emplace_back([&, t] {
          std::vector<RankWaitInput> mine;
          for (std::size_t r = first + t * count / threads[p];
               r < first + (t + 1) * count / threads[p]; ++r)
            mine.push_back(job[r].input());
          const NestedExchange exchange(meeting, t);
          WaitStateReport waits = analyse_wait_states(mine, exchange, {}, round_bytes);
          CriticalPath path = find_critical_path(
              mine, waits, exchange.index() == 0 ? spans : RankSpans{}, exchange);
          if (exchange.index() == 0) result = {std::move(waits), std::move(path)};
        });
      for (std::thread& worker : workers) worker.join();
    });
  for (std::thread& thread : process_threads) thread.join();
  return result;
}

void expect_same(const std::pair<WaitStateReport, CriticalPath>& expected,
                 const std::pair<WaitStateReport, CriticalPath>& found, const std::string& how) {
  const auto& [waits, path] = expected;
  const auto& [spread_waits, spread_path] = found;
  EXPECT_EQ(spread_waits.waits.size(), waits.waits.size()) << how;
  for (const auto& [key, total] : waits.waits) {
    const auto match = spread_waits.waits.find(key);
    ASSERT_NE(match, spread_waits.waits.end()) << how;
    EXPECT_EQ(match->second.count, total.count) << how;
    EXPECT_EQ(match->second.total_ns, total.total_ns) << how;
  }
  const std::vector<WaitEdge> edges = waits.edges.all();
  const std::vector<WaitEdge> spread_edges = spread_waits.edges.all();
  ASSERT_EQ(spread_edges.size(), edges.size()) << how;
  for (std::size_t i = 0; i < edges.size(); ++i) {
    const auto& a = edges[i];
    const auto& b = spread_edges[i];
    EXPECT_EQ(std::tie(a.waiting, a.awaited, a.from, a.to, a.pattern),
              std::tie(b.waiting, b.awaited, b.from, b.to, b.pattern))
        << how;
    EXPECT_EQ(waits.causes[a.cause], spread_waits.causes[b.cause]) << how;
  }
  EXPECT_EQ(spread_waits.causes, waits.causes) << how;
  EXPECT_EQ(spread_waits.mismatched_collectives, waits.mismatched_collectives) << how;
  ASSERT_EQ(spread_path.stretches.size(), path.stretches.size()) << how;
  EXPECT_EQ(spread_path.length_ns, path.length_ns) << how;
  EXPECT_EQ(spread_path.by_rank, path.by_rank) << how;
  EXPECT_EQ(spread_path.by_activity, path.by_activity) << how;
}

TEST(WaitStates, EveryNumberOfMergeProcessesFindsTheSameWaitsAndPath) {
  for (const std::uint32_t seed : {1U, 2U, 3U}) {
    const std::vector<Rank> job = random_job(seed, 11);
    const auto expected = analysed_by(job, 1);
    const auto& [waits, path] = expected;
    ASSERT_GT(waits.edges.size(), 100U) << "seed " << seed;
    ASSERT_GT(path.stretches.size(), 2U) << "seed " << seed;
    std::set<WaitPattern> patterns;
    for (const auto& [key, total] : waits.waits) patterns.insert(std::get<0>(key));
    EXPECT_GE(patterns.size(), 4U) << "seed " << seed;
    for (const std::size_t processes : {2U, 3U, 8U, 16U})
      expect_same(expected, analysed_by(job, processes),
                  fmt::format("seed {}, {} processes", seed, processes));
  }
}

TEST(WaitStates, WaitsOnARankEveryoneWaitsForAreBlamedWhereTheyAreFound) {
  // Every rank waits for rank 4 at each collective, its next rank at each message: more
  // waits are on it than 3 or 8 processes' even share, so its doings go to every process,
  // which blames its own waits on it, with the causes the process of rank 4 would find.
  for (const std::uint32_t seed : {1U, 2U}) {
    const std::vector<Rank> job = random_job(seed, 11, 4);
    const auto expected = analysed_by(job, 1);
    EXPECT_EQ(expected.first.shared_ranks, 0U);
    std::size_t on_late = 0;
    for (const WaitEdge& edge : expected.first.edges.all()) on_late += edge.awaited == 4 ? 1 : 0;
    ASSERT_GT(on_late * 3, expected.first.edges.size()) << "seed " << seed;
    for (const std::size_t processes : {3U, 8U}) {
      const auto found = analysed_by(job, processes);
      EXPECT_GE(found.first.shared_ranks, 1U) << processes;
      expect_same(expected, found, fmt::format("seed {}, {} processes", seed, processes));
    }
    // Threads of processes share it too (each a process of its own to the analysis).
    const auto threaded = analysed_by_threads(job, {2, 3}, kAnalysisMemory);
    EXPECT_GE(threaded.first.shared_ranks, 1U);
    expect_same(expected, threaded, fmt::format("seed {}, threads", seed));
  }
}

// Marks the receives whose call (thread, begin, end) completed no other message, as the
// gatherer does; returns how many receives were marked and how many shared their call.
std::pair<std::size_t, std::size_t> mark_sole_receives(std::vector<Rank>& job) {
  std::size_t marked = 0;
  std::size_t shared = 0;
  for (Rank& rank : job) {
    std::map<std::tuple<std::uint32_t, std::uint64_t, std::uint64_t>, std::size_t> per_call;
    for (const MessageEnd& end : rank.messages())
      if (!end.sends()) ++per_call[{end.thread_id, end.begin_ns, end.end_ns}];
    for (MessageEnd& end : rank.messages()) {
      if (end.sends()) continue;
      if (per_call[{end.thread_id, end.begin_ns, end.end_ns}] == 1) {
        end.flags |= MessageEnd::kSoleReceive;
        ++marked;
      } else {
        ++shared;
      }
    }
  }
  return {marked, shared};
}

TEST(WaitStates, ReceivesOfOneMessageSettledAtOnceFindTheSameWaits) {
  // A receive marked as its call's only message has its late-sender wait settled when its
  // send meets it, not held for the call's other messages: the same waits either way.
  for (const std::uint32_t seed : {6U, 7U}) {
    std::vector<Rank> job = random_job(seed, 11);
    const auto expected = analysed_by(job, 1);
    ASSERT_GT(expected.first.edges.size(), 100U);
    ASSERT_GT(mark_sole_receives(job).first, 50U);
    for (const std::size_t processes : {1U, 3U})
      expect_same(expected, analysed_by(job, processes),
                  fmt::format("seed {}, {} processes, sole receives marked", seed, processes));
  }
  // A Waitall of two messages is not marked, and still waits for its latest sender only;
  // a receive of one message that ends before its send began waits until it ends.
  std::vector<Rank> job{Rank(0), Rank(2), Rank(1), Rank(3)};
  job[0].send(1, "MPI_Isend", 3000, 3100, 1);
  job[1].send(2, "MPI_Isend", 6000, 6100, 1);
  job[2].receive(1, "MPI_Waitall", 1000, 7000, 100).receive(2, "MPI_Waitall", 1000, 7000, 100);
  job[0].send(3, "MPI_Isend", 9000, 9100, 3);
  job[3].receive(3, "MPI_Recv", 8000, 8500, 8000);  // (times as aligned, not causal)
  EXPECT_EQ(mark_sole_receives(job), (std::pair<std::size_t, std::size_t>(1, 2)));
  const WaitStateReport report = analyse(job);
  ASSERT_EQ(report.edges.size(), 2U);
  std::map<std::int32_t, std::pair<std::uint64_t, std::int32_t>> waited;  // rank -> ns, awaited
  for (const auto& edge : report.edges.all())
    waited[edge.waiting] = {edge.to - edge.from, edge.awaited};
  EXPECT_EQ(waited.at(1), (std::pair<std::uint64_t, std::int32_t>(5000, 2)));
  EXPECT_EQ(waited.at(3), (std::pair<std::uint64_t, std::int32_t>(500, 0)));
}

TEST(WaitStates, SpilledEndsTakenInRoundsFindTheSameWaitsAndPath) {
  const fs::path dir = rocprof::test::fresh_test_dir("wait_states_spill");
  for (const std::uint32_t seed : {4U, 5U}) {
    const std::vector<Rank> job = random_job(seed, 11);
    const auto expected = analysed_by(job, 1);
    ASSERT_GT(expected.first.edges.size(), 100U) << "seed " << seed;
    EXPECT_EQ(expected.first.rounds, 1U);
    EXPECT_EQ(expected.first.spilled_bytes, 0U);
    for (const std::size_t processes : {1U, 3U, 8U})
      for (const std::size_t round_bytes : {std::size_t{1}, std::size_t{2000}, kAnalysisMemory}) {
        const auto spill = std::make_shared<EndSpill>(dir.string(), round_bytes);
        const auto found = analysed_by(job, processes, spill, round_bytes);
        const std::string how =
            fmt::format("seed {}, {} processes, rounds of {} bytes", seed, processes, round_bytes);
        expect_same(expected, found, how);
        EXPECT_GT(spill->spilled_bytes(), 0U) << how;
        // What the processes' ranks had spilled, told by the first process.
        EXPECT_EQ(found.first.spilled_bytes, spill->spilled_bytes()) << how;
        // As many rounds as slices for 1 byte, more than one for 2000, one for the default.
        if (round_bytes == 1) {
          EXPECT_EQ(found.first.rounds, kEndSlices) << how;
        } else if (round_bytes == 2000) {
          EXPECT_GT(found.first.rounds, 1U) << how;
        } else {
          EXPECT_EQ(found.first.rounds, 1U) << how;
        }
        // Past a small budget the job's edges, too, went to the spill file and came back.
        EXPECT_EQ(found.first.edges.spilled(), round_bytes != kAnalysisMemory) << how;
      }
  }
  // Nothing is left in the directory: the spill is unlinked as soon as it is made.
  EXPECT_TRUE(fs::is_empty(dir));
  fs::remove_all(dir);
}

// An exchange between threads whose first process sees, in its `damaged_call`-th exchange (from
// 1), the part of process 1 changed by `damage`. Counts the first process's exchanges.
class DamagingExchange final : public AnalysisExchange {
 public:
  DamagingExchange(ThreadExchange::Meeting& meeting, std::size_t index, std::size_t damaged_call,
                   std::function<void(std::vector<std::byte>&)> damage)
      : inner_(meeting, index), damaged_call_(damaged_call), damage_(std::move(damage)) {}
  std::size_t processes() const override { return inner_.processes(); }
  std::size_t index() const override { return inner_.index(); }
  std::vector<std::vector<std::byte>> all_to_all(
      std::vector<std::vector<std::byte>> parts) const override {
    std::vector<std::vector<std::byte>> received = inner_.all_to_all(std::move(parts));
    if (index() == 0 && ++calls_ == damaged_call_) damage_(received.at(1));
    return received;
  }
  std::size_t calls() const { return calls_; }
  void leave() const { inner_.leave(); }

 private:
  ThreadExchange inner_;
  std::size_t damaged_call_;
  std::function<void(std::vector<std::byte>&)> damage_;
  mutable std::size_t calls_ = 0;
};

// The analysis of `job` by three processes, the first's `damaged_call`-th exchange damaged;
// returns how many exchanges the first made and what it threw ("" if nothing).
std::pair<std::size_t, std::string> analysed_with_damage(
    const std::vector<Rank>& job, std::size_t damaged_call,
    const std::function<void(std::vector<std::byte>&)>& damage) {
  constexpr std::size_t kProcesses = 3;
  ThreadExchange::Meeting meeting(kProcesses);
  std::pair<std::size_t, std::string> result;
  std::vector<std::thread> threads;
  for (std::size_t p = 0; p < kProcesses; ++p)
    threads.emplace_back([&, p] {
      std::vector<RankWaitInput> mine;
      for (std::size_t r = p * job.size() / kProcesses; r < (p + 1) * job.size() / kProcesses; ++r)
        mine.push_back(job[r].input());
      const DamagingExchange exchange(meeting, p, damaged_call, damage);
      try {
        analyse_wait_states(mine, exchange);
      } catch (const std::exception& error) {
        if (p == 0) result.second = error.what();
        exchange.leave();
      }
      if (p == 0) result.first = exchange.calls();
    });
  for (std::thread& thread : threads) thread.join();
  return result;
}

TEST(WaitStates, DamagedEdgesFromAnotherProcessAreRefused) {
  // The edges come last, a range of waiting ranks at a time: the first process's last
  // exchange holds process 1's edges. Each kind of damage its checks can see, at a seeded
  // random edge: refused with a message, never sized for, read past or written out.
  for (const std::uint32_t seed : {1U, 2U, 3U, 4U}) {
    const std::vector<Rank> job = random_job(seed, 11);
    const std::size_t calls = analysed_with_damage(job, 0, {}).first;
    ASSERT_GT(calls, 1U);
    std::mt19937 random(seed);
    const auto at_random_edge = [&random](std::vector<std::byte>& part, std::size_t offset,
                                          auto value) {
      ASSERT_GE(part.size(), sizeof(WaitEdge));
      const std::size_t edge = random() % (part.size() / sizeof(WaitEdge));
      std::memcpy(part.data() + edge * sizeof(WaitEdge) + offset, &value, sizeof(value));
    };
    const std::vector<std::pair<std::string, std::function<void(std::vector<std::byte>&)>>> damages{
        {"a cause past the names",
         [&](std::vector<std::byte>& part) {
           at_random_edge(part, offsetof(WaitEdge, cause), std::uint32_t{1U << 30U});
         }},
        {"an unknown pattern",
         [&](std::vector<std::byte>& part) {
           at_random_edge(part, offsetof(WaitEdge, pattern), std::uint8_t{200});
         }},
        {"a waiting rank outside its range",
         [&](std::vector<std::byte>& part) {
           at_random_edge(part, offsetof(WaitEdge, waiting), std::int32_t{-7});
         }},
        {"a part cut inside an edge",
         [&](std::vector<std::byte>& part) {
           ASSERT_GE(part.size(), sizeof(WaitEdge));
           part.resize(part.size() - 1 - random() % (sizeof(WaitEdge) - 1));
         }},
    };
    for (const auto& [what, damage] : damages) {
      const auto [damaged_calls, error] = analysed_with_damage(job, calls, damage);
      EXPECT_EQ(damaged_calls, calls) << what;
      EXPECT_NE(error.find("damaged"), std::string::npos) << what << ": '" << error << "'";
    }
    // Undamaged, the same job is analysed without complaint.
    EXPECT_EQ(analysed_with_damage(job, calls, [](std::vector<std::byte>&) {}).second, "");
  }
}

// Where the waits of a blame part (found_wait.hpp) lie in it, and how many: nullopt if `part`
// is no blame part with waits.
std::optional<std::pair<std::size_t, std::size_t>> blamed_waits(
    const std::vector<std::byte>& part) {
  try {
    ByteReader in(part);
    const auto paths = in.get<std::uint64_t>();
    if (paths == 0 || paths > 64) return std::nullopt;  // each wait names a path, maybe ""
    for (std::uint64_t i = 0; i < paths; ++i) in.get_string();
    const std::span<const std::byte> waits = in.get_bytes();
    if (!in.done() || waits.empty() || waits.size() % sizeof(PathedWait) != 0) return std::nullopt;
    return std::pair{static_cast<std::size_t>(waits.data() - part.data()),
                     waits.size() / sizeof(PathedWait)};
  } catch (const std::runtime_error&) {
    return std::nullopt;
  }
}

TEST(WaitStates, DamagedBlamePartsFromAnotherProcessAreRefused) {
  // Each wait goes to its awaited rank's process with its call path's number. Each kind of
  // damage the checks there can see, in a seeded random one of the exchanges that carry
  // process 1's waits to the first: refused with a message, never looked up or added up.
  for (const std::uint32_t seed : {1U, 2U, 3U}) {
    const std::vector<Rank> job = random_job(seed, 11);
    const std::size_t calls = analysed_with_damage(job, 0, {}).first;
    std::vector<std::size_t> blame_calls;
    for (std::size_t call = 1; call <= calls; ++call) {
      bool blame = false;
      analysed_with_damage(job, call, [&blame](std::vector<std::byte>& part) {
        blame = blamed_waits(part).has_value();
      });
      if (blame) blame_calls.push_back(call);
    }
    ASSERT_FALSE(blame_calls.empty()) << "seed " << seed;
    std::mt19937 random(seed);
    // `value` over the field at `offset` of a random wait of the part.
    const auto at_random_wait = [&random](std::vector<std::byte>& part, std::size_t offset,
                                          auto value) {
      const auto [first, count] = blamed_waits(part).value();
      const std::size_t wait = first + (random() % count) * sizeof(PathedWait);
      std::memcpy(part.data() + wait + offset, &value, sizeof(value));
    };
    const std::size_t wait_field = offsetof(PathedWait, wait);
    const std::vector<std::pair<std::string, std::function<void(std::vector<std::byte>&)>>> damages{
        {"a call-path count past the part",
         [](std::vector<std::byte>& part) {
           const std::uint64_t count = std::uint64_t{1} << 40U;
           std::memcpy(part.data(), &count, sizeof(count));
         }},
        {"a call path past the part's",
         [&](std::vector<std::byte>& part) {
           at_random_wait(part, offsetof(PathedWait, call_path), std::uint32_t{70});
         }},
        {"a function past the job's",
         [&](std::vector<std::byte>& part) {
           at_random_wait(part, wait_field + offsetof(FoundWait, function), std::uint16_t{65535});
         }},
        {"an unknown pattern",
         [&](std::vector<std::byte>& part) {
           at_random_wait(part, wait_field + offsetof(FoundWait, pattern), std::uint8_t{200});
         }},
        {"an awaited rank of no process",
         [&](std::vector<std::byte>& part) {
           at_random_wait(part, wait_field + offsetof(FoundWait, awaited), std::int32_t{-5});
         }},
        {"a wait that ends before it began",
         [&](std::vector<std::byte>& part) {
           at_random_wait(part, wait_field + offsetof(FoundWait, from), ~std::uint64_t{0});
         }},
    };
    for (const auto& [what, damage] : damages) {
      const std::size_t call = blame_calls[random() % blame_calls.size()];
      const auto [damaged_calls, error] = analysed_with_damage(job, call, damage);
      EXPECT_EQ(damaged_calls, call) << what;
      EXPECT_NE(error.find("damaged"), std::string::npos) << what << ": '" << error << "'";
    }
  }
}

// The ranks' inputs of a part that carries copies of ranks many waited for (a doings-only
// RankWaitInput each, one after the other); empty if `part` is no such part.
std::vector<RankWaitInput> copied_ranks(const std::vector<std::byte>& part) {
  std::vector<RankWaitInput> copies;
  try {
    ByteReader in(part);
    while (!in.done()) copies.push_back(RankWaitInput::get(in));
  } catch (const std::exception&) {
    return {};
  }
  for (const RankWaitInput& copy : copies)
    if (copy.doings.empty() || !copy.messages.empty()) return {};
  return copies;
}

// Whether `part` is a count of waits per awaited rank: a count n, then n (rank, waits).
bool waits_per_rank(const std::vector<std::byte>& part, std::int32_t ranks) {
  if (part.size() < sizeof(std::uint64_t)) return false;
  ByteReader in(part);
  const auto count = in.get<std::uint64_t>();
  if (count == 0 || part.size() != sizeof(std::uint64_t) + count * 12) return false;
  for (std::uint64_t i = 0; i < count; ++i) {
    const auto rank = in.get<std::int32_t>();
    in.get<std::uint64_t>();
    if (rank < 0 || rank >= ranks) return false;
  }
  return true;
}

TEST(WaitStates, DamagedCopiesOfARankManyWaitForAreRefused) {
  // Rank 4, which most waits wait for, is process 1's: process 1 sends its waits per
  // awaited rank to the first, then the copy of rank 4's doings. Damage to either is refused
  // with a message, never sized for or looked up.
  const std::vector<Rank> job = random_job(1, 11, 4);
  const std::size_t calls = analysed_with_damage(job, 0, {}).first;
  std::size_t counts_call = 0;
  std::size_t copies_call = 0;
  for (std::size_t call = 1; call <= calls; ++call)
    analysed_with_damage(job, call, [&](std::vector<std::byte>& part) {
      if (counts_call == 0 && waits_per_rank(part, 11)) counts_call = call;
      const std::vector<RankWaitInput> copies = copied_ranks(part);
      if (copies_call == 0 && copies.size() == 1 && copies[0].rank == 4) copies_call = call;
    });
  ASSERT_GT(counts_call, 0U);
  ASSERT_GT(copies_call, counts_call);
  const auto refused = [&](std::size_t call, const auto& damage, const std::string& what) {
    const auto [damaged_calls, error] = analysed_with_damage(job, call, damage);
    EXPECT_EQ(damaged_calls, call) << what;
    EXPECT_NE(error.find("damaged"), std::string::npos) << what << ": '" << error << "'";
  };
  refused(
      counts_call,
      [](std::vector<std::byte>& part) {
        const std::uint64_t count = std::uint64_t{1} << 40U;
        std::memcpy(part.data(), &count, sizeof(count));
      },
      "a count of ranks past the part");
  // A doing named past the copy's names: found by its bytes, its name overwritten.
  const auto renamed = [](std::size_t doing) {
    return [doing](std::vector<std::byte>& part) {
      const RankWaitInput copy = copied_ranks(part).at(0);
      const Doing& target = copy.doings.at(doing % copy.doings.size());
      const auto* bytes = reinterpret_cast<const std::byte*>(&target);
      const auto at = std::search(part.begin(), part.end(), bytes, bytes + sizeof(Doing));
      ASSERT_NE(at, part.end());
      const std::uint32_t name = 1U << 30U;
      const auto name_at = reinterpret_cast<const std::byte*>(&target.name) - bytes;
      std::memcpy(&*(at + name_at), &name, sizeof(name));
    };
  };
  std::mt19937 random(1);
  for (int i = 0; i < 3; ++i)
    refused(copies_call, renamed(random()), "a copied doing named past the names");
  refused(
      copies_call, [](std::vector<std::byte>& part) { part.resize(part.size() - 3); },
      "a copy cut short");
}

TEST(WaitStates, DamagedSendsAndInstancePartsFromAnotherProcessAreRefused) {
  // A round's first exchange carries each process's collective instance parts, after their
  // length, and then its sends: the first round's follows the exchange of ranks and functions
  // (the second call). Each kind of damage to that framing: refused with a message, never
  // read past.
  for (const std::uint32_t seed : {1U, 2U, 3U}) {
    const std::vector<Rank> job = random_job(seed, 11);
    constexpr std::size_t kFirstRound = 2;
    std::vector<std::byte> sent;
    analysed_with_damage(job, kFirstRound, [&sent](std::vector<std::byte>& part) { sent = part; });
    // The part process 1 sent process 0 is framed so: a length, its instance parts, sends.
    ASSERT_GE(sent.size(), sizeof(std::uint64_t));
    std::uint64_t length = 0;
    std::memcpy(&length, sent.data(), sizeof(length));
    ASSERT_GT(length, 0U) << "seed " << seed;
    ASSERT_GE(sent.size(), sizeof(std::uint64_t) + length) << "seed " << seed;
    const auto set_length = [](std::vector<std::byte>& part, std::uint64_t value) {
      std::memcpy(part.data(), &value, sizeof(value));
    };
    const std::vector<std::pair<std::string, std::function<void(std::vector<std::byte>&)>>> damages{
        {"a length past the part",
         [&](std::vector<std::byte>& part) { set_length(part, part.size()); }},
        {"a length of whole instance parts past the part",
         [&](std::vector<std::byte>& part) { set_length(part, length * 4096); }},
        {"a length far past the part",
         [&](std::vector<std::byte>& part) { set_length(part, ~std::uint64_t{0}); }},
        {"a length that cuts an instance part",
         [&](std::vector<std::byte>& part) { set_length(part, length + 1); }},
        {"a part cut inside its length", [](std::vector<std::byte>& part) { part.resize(5); }},
    };
    for (const auto& [what, damage] : damages) {
      const auto [damaged_calls, error] = analysed_with_damage(job, kFirstRound, damage);
      EXPECT_EQ(damaged_calls, kFirstRound) << what;
      EXPECT_NE(error.find("damaged"), std::string::npos) << what << ": '" << error << "'";
    }
  }
}

TEST(WaitStates, ProcessesOfSeveralThreadsFindTheSameWaitsAndPath) {
  // Each merge process analyses on its own number of threads, in one round or many.
  for (const std::uint32_t seed : {1U, 2U, 3U}) {
    const std::vector<Rank> job = random_job(seed, 11);
    const auto expected = analysed_by(job, 1);
    ASSERT_GT(expected.first.edges.size(), 100U);
    for (const auto& threads : std::vector<std::vector<std::size_t>>{{2}, {1, 3, 2}, {3, 3}})
      for (const std::size_t round_bytes : {std::size_t{2000}, kAnalysisMemory}) {
        const auto found = analysed_by_threads(job, threads, round_bytes);
        expect_same(expected, found,
                    fmt::format("seed {}, threads {}, rounds of {} bytes", seed,
                                fmt::join(threads, "/"), round_bytes));
        if (round_bytes == 2000) {
          EXPECT_GT(found.first.rounds, 1U);
        }
      }
  }
}

TEST(WaitStates, AReportTravelsBetweenProcessesWhole) {
  const std::vector<Rank> job = random_job(7, 5);
  const auto [waits, path] = analysed_by(job, 1);
  ByteWriter out;
  waits.put(out);
  const std::vector<std::byte> bytes = out.take();
  ByteReader in(bytes);
  const WaitStateReport copy = WaitStateReport::get(in);
  EXPECT_TRUE(in.done());
  EXPECT_EQ(copy.waits.size(), waits.waits.size());
  EXPECT_TRUE(copy.edges.empty());  // edges travel apart
  EXPECT_EQ(copy.causes, waits.causes);
  // Cut short: refused, not half read.
  const std::vector<std::byte> cut(bytes.begin(), bytes.begin() + bytes.size() / 2);
  ByteReader cut_in(cut);
  EXPECT_THROW(WaitStateReport::get(cut_in), std::runtime_error);
}

}  // namespace
}  // namespace rocprof::merge
