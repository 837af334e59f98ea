// Ranks encoded ahead on helper threads (EncodeAhead) and the Perfetto exporter that uses it:
// whatever the number of helpers, the output is byte for byte the one a single thread
// writes, the summary gathered meanwhile is the same, and a rank that fails fails the export
// as it would serially.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>
#include <csignal>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "merge/causality/messages.hpp"
#include "merge/causality/spill_ahead.hpp"
#include "merge/events/aligned_rank.hpp"
#include "merge/events/stream_table.hpp"
#include "merge/export/encode_ahead.hpp"
#include "merge/export/perfetto_trace.hpp"
#include "merge/input/rank_set.hpp"
#include "merge/summary/summary.hpp"
#include "tests/tools/synthetic_job.hpp"
#include "tests/tools/test_dir.hpp"

namespace {

namespace fs = std::filesystem;
using namespace rocprof::merge;

// --- EncodeAhead on its own ---------------------------------------------------------------

struct Outcome {
  std::vector<std::size_t> aside;    // items the writer took as encoded aside
  std::vector<std::size_t> inline_;  // items the writer encoded itself
  std::uint64_t most_held = 0;       // the most weight encoded aside and not yet written
};

// Runs the writer's loop over `weights`; encoding an item aside takes a little while.
Outcome run_items(const std::vector<std::uint64_t>& weights, std::uint64_t budget,
                  std::size_t helpers) {
  Outcome outcome;
  std::atomic<std::uint64_t> held{0};
  std::atomic<std::uint64_t> most{0};
  std::vector<int> encoded(weights.size(), 0);
  std::vector<std::size_t> claims;
  std::mutex claims_mutex;
  std::condition_variable claimed;
  EncodeAhead::Plan plan{weights, budget, helpers, 4};
  EncodeAhead ahead(
      plan,
      [&](std::size_t item) {
        const std::uint64_t now = held += weights[item];
        std::uint64_t seen = most.load();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        encoded[item] = 1;
      },
      [&](std::size_t item) {
        {
          const std::lock_guard lock(claims_mutex);
          claims.push_back(item);
        }
        claimed.notify_all();
      });
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (ahead.take(i)) {
      EXPECT_EQ(encoded[i], 1) << "item " << i << " handed over before it was encoded";
      outcome.aside.push_back(i);
      held -= weights[i];
    } else {
      outcome.inline_.push_back(i);
      std::this_thread::sleep_for(std::chrono::microseconds(300));  // the writer encodes it
      if (i == 0 && helpers > 0 && weights.size() > 1 && weights[1] != 0 && weights[1] <= budget) {
        // However loaded the machine, a helper claims the next item while the writer
        // encodes this one.
        std::unique_lock lock(claims_mutex);
        claimed.wait(lock, [&] { return claims.size() > 1; });
      }
    }
    ahead.written(i);
  }
  outcome.most_held = most.load();
  // Every item is claimed once, in item order.
  std::vector<std::size_t> expected(weights.size());
  for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = i;
  EXPECT_EQ(claims, expected);
  return outcome;
}

TEST(EncodeAhead, EveryItemIsTakenOnceInOrderWithinTheBudget) {
  const std::vector<std::uint64_t> weights(40, 10);
  const Outcome outcome = run_items(weights, 25, 3);
  EXPECT_EQ(outcome.aside.size() + outcome.inline_.size(), weights.size());
  EXPECT_FALSE(outcome.aside.empty()) << "no helper encoded anything";
  // Never more than the budget held aside (two items of 10 in 25).
  EXPECT_LE(outcome.most_held, 25U);
}

TEST(EncodeAhead, TheWritersItemsAndHeavyItemsAreNeverEncodedAside) {
  // Weight 0: the writer's (it needs HDF5); 100 exceeds the whole budget.
  std::vector<std::uint64_t> weights(20, 5);
  weights[0] = weights[7] = weights[13] = 0;
  weights[9] = 100;
  const Outcome outcome = run_items(weights, 50, 2);
  for (const std::size_t kept : {0, 7, 9, 13})
    EXPECT_NE(std::find(outcome.inline_.begin(), outcome.inline_.end(), kept),
              outcome.inline_.end())
        << kept;
}

TEST(EncodeAhead, WithoutHelpersTheWriterEncodesEverything) {
  const Outcome outcome = run_items(std::vector<std::uint64_t>(10, 1), 100, 0);
  EXPECT_TRUE(outcome.aside.empty());
  EXPECT_EQ(outcome.inline_.size(), 10U);
}

TEST(EncodeAhead, AnItemsFailureIsThrownAtItsTurn) {
  // Items before it are handed over first; the failure comes when the writer reaches it.
  // The writer encodes item 0 itself and waits, meanwhile, for helpers to claim item 6.
  const std::vector<std::uint64_t> weights(12, 1);
  std::mutex mutex;
  std::condition_variable claimed;
  std::size_t claimed_up_to = 0;
  std::size_t reached = 0;
  try {
    EncodeAhead::Plan plan{weights, 100, 2, 16};
    EncodeAhead ahead(
        plan,
        [&](std::size_t item) {
          if (item == 6) throw std::runtime_error("item 6 failed");
        },
        [&](std::size_t item) {
          {
            const std::lock_guard lock(mutex);
            claimed_up_to = item;
          }
          claimed.notify_all();
        });
    for (std::size_t i = 0; i < weights.size(); ++i) {
      reached = i;
      if (!ahead.take(i)) {
        ASSERT_EQ(i, 0U) << "the writer got item " << i << " itself";
        std::unique_lock lock(mutex);
        claimed.wait(lock, [&] { return claimed_up_to >= 6; });
      }
      ahead.written(i);
    }
    FAIL() << "the failure went unreported";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "item 6 failed");
    EXPECT_EQ(reached, 6U);
  }
}

TEST(EncodeAhead, HelpersFollowTheCpusGiven) {
  EXPECT_EQ(EncodeAhead::helpers_for(1), 0U);
  EXPECT_EQ(EncodeAhead::helpers_for(2), 0U);
  EXPECT_EQ(EncodeAhead::helpers_for(3), 1U);
  EXPECT_EQ(EncodeAhead::helpers_for(4), 2U);
  EXPECT_EQ(EncodeAhead::helpers_for(64), 3U);
}

// --- The Perfetto export with helpers -----------------------------------------------------

class PerfettoExport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = rocprof::test::fresh_test_dir("perfetto_export");
    job_.directory = (dir_ / "job").string();
    job_.ranks = 9;
    job_.events_per_rank = 3000;
    job_.gpu_aware_allreduce = true;
    job_.user_regions = true;
    job_.skewed_rank = 4;  // some receives end before their sends: corrections and flows
    job_.skew_ns = 400'000;
    rocprof::test::write_synthetic_job(job_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The merge's steps up to writing: the rank set, clocks, matching and corrections.
  struct Merge {
    RankSet set;
    std::vector<AlignedRank> ranks;
    std::vector<const AlignedRank*> pointers;
  };
  // With `head_start`, ranks are encoded (and their rows summed up) on `head_start` threads
  // before the matching's outcome is applied, as the merge does while it matches; the ranks
  // it changes are dropped and summed up again.
  std::unique_ptr<Merge> open(std::size_t head_start = 0, Summary* summary = nullptr,
                              std::unique_ptr<PerfettoHeadStart>* started = nullptr) const {
    auto merge = std::make_unique<Merge>(Merge{RankSet::open({job_.directory}, {}), {}, {}});
    for (const auto& rank : merge->set.ranks()) merge->ranks.emplace_back(rank.rank, *rank.reader);
    const std::string spill_path = (dir_ / "spill").string();
    EndpointSpill spill(spill_path);
    for (const AlignedRank& rank : merge->ranks) spill.add(rank);
    const SpillSummary& spilled = spill.finish();
    auto table = std::make_shared<StreamTable>(spilled.streams, spilled.invisible);
    for (AlignedRank& rank : merge->ranks) {
      rank.set_streams(table);
      merge->pointers.push_back(&rank);
    }
    if (summary != nullptr)
      for (const AlignedRank& rank : merge->ranks) summary->watch(rank);
    if (head_start > 0) {
      *started = std::make_unique<PerfettoHeadStart>(merge->pointers, head_start);
      // Every rank encoded (they fit the budget) before the outcome comes.
      for (int wait = 0; wait < 10000 && (*started)->kept_count() < merge->ranks.size(); ++wait)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      EXPECT_EQ((*started)->kept_count(), merge->ranks.size());
      (*started)->stop();
    }
    const CausalityReport report = check_causality({spilled}, *table, true);
    EXPECT_GT(report.violations_before, 0U) << "the skewed rank should need correcting";
    for (AlignedRank& rank : merge->ranks) {
      const auto found = report.corrections.find(rank.rank());
      if (found != report.corrections.end()) rank.set_correction(found->second);
    }
    if (head_start > 0) {
      (*started)->drop([&](std::size_t i) { return report.changes(merge->ranks[i].rank()); });
      for (std::size_t i = 0; i < merge->ranks.size(); ++i)
        if (summary != nullptr && !(*started)->kept(i)) summary->watch_again(merge->ranks[i]);
    }
    return merge;
  }
  // Exports with `helpers` (and a head start on `head_start` threads); returns the file's
  // bytes.
  std::string export_with(std::size_t helpers, PerfettoStats* stats = nullptr,
                          Summary* summary = nullptr, std::size_t head_start = 0,
                          std::size_t* kept = nullptr) const {
    std::unique_ptr<PerfettoHeadStart> started;
    const std::unique_ptr<Merge> merge = open(head_start, summary, &started);
    if (kept != nullptr) *kept = started ? started->kept_count() : 0;
    const std::string out = (dir_ / fmt::format("out{}_{}.pftrace", helpers, head_start)).string();
    std::vector<std::size_t> progress;
    const PerfettoStats got = export_perfetto(
        merge->pointers, out, [&](std::size_t done, std::size_t) { progress.push_back(done); },
        helpers, BlockFile::direct_io_from_environment(), started.get());
    if (summary != nullptr) {
      for (const AlignedRank& rank : merge->ranks) rank.watch({});
      summary->end_watch();
    }
    EXPECT_FALSE(progress.empty());
    EXPECT_TRUE(std::is_sorted(progress.begin(), progress.end())) << "progress went backwards";
    if (stats != nullptr) *stats = got;
    std::ifstream in(out, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

  fs::path dir_;
  rocprof::test::SyntheticJob job_;
};

TEST_F(PerfettoExport, HelpersWriteTheBytesOneThreadWrites) {
  PerfettoStats alone{};
  const std::string serial = export_with(0, &alone);
  ASSERT_GT(serial.size(), 100'000U);
  EXPECT_GT(alone.flows, 0U);
  for (const std::size_t helpers : {1, 3}) {
    PerfettoStats stats{};
    const std::string parallel = export_with(helpers, &stats);
    EXPECT_TRUE(parallel == serial) << helpers << " helpers wrote other bytes";
    EXPECT_EQ(stats.slices, alone.slices);
    EXPECT_EQ(stats.instants, alone.instants);
    EXPECT_EQ(stats.flows, alone.flows);
    EXPECT_EQ(stats.packets, alone.packets);
  }
}

TEST_F(PerfettoExport, RanksEncodedWhileMatchingWriteTheSameBytes) {
  // The head start encodes every rank uncorrected; the matching then corrects the skewed
  // rank (and those its corrections reach): those are dropped and encoded again in turn.
  PerfettoStats alone{};
  const std::string serial = export_with(0, &alone);
  for (const auto& [threads, helpers] : {std::pair{1, 0}, std::pair{3, 0}, std::pair{2, 3}}) {
    PerfettoStats stats{};
    std::size_t kept = 0;
    const std::string ahead = export_with(helpers, &stats, nullptr, threads, &kept);
    EXPECT_TRUE(ahead == serial) << threads << " head-start threads wrote other bytes";
    EXPECT_GT(kept, 0U) << "no rank was kept: nothing tested the kept ranks' bytes";
    EXPECT_LT(kept, job_.ranks) << "no rank was dropped: nothing tested a corrected rank";
    EXPECT_EQ(stats.slices, alone.slices);
    EXPECT_EQ(stats.instants, alone.instants);
    EXPECT_EQ(stats.flows, alone.flows);
    EXPECT_EQ(stats.packets, alone.packets);
  }
}

TEST_F(PerfettoExport, TheSummaryGatheredMeanwhileIsTheSame) {
  Summary serial;
  export_with(0, nullptr, &serial);
  // Helpers, or a head start whose corrected ranks are summed up again.
  for (const std::size_t head_start : {0, 2}) {
    Summary parallel;
    export_with(3, nullptr, &parallel, head_start);
    ASSERT_FALSE(serial.mpi().empty());
    ASSERT_FALSE(serial.regions().empty());
    auto same = [](const Summary::Stat& a, const Summary::Stat& b) {
      return a.count == b.count && a.total_ns == b.total_ns && a.min_ns == b.min_ns &&
             a.max_ns == b.max_ns && a.self_ns == b.self_ns && a.mean_ns == b.mean_ns &&
             a.m2 == b.m2;
    };
    ASSERT_EQ(serial.mpi().size(), parallel.mpi().size());
    for (const auto& [function, per_rank] : serial.mpi()) {
      const auto& other = parallel.mpi().at(function);
      ASSERT_EQ(per_rank.size(), other.size()) << function;
      for (const auto& [rank, stat] : per_rank) EXPECT_TRUE(same(stat, other.at(rank))) << function;
    }
    ASSERT_EQ(serial.regions().size(), parallel.regions().size());
    for (const auto& [key, stat] : serial.regions())
      EXPECT_TRUE(same(stat, parallel.regions().at(key))) << std::get<2>(key);
    std::string serial_text;
    std::string parallel_text;
    for (const auto& [summary, text] :
         {std::pair{&serial, &serial_text}, std::pair{&parallel, &parallel_text}}) {
      std::FILE* out = std::tmpfile();
      summary->print(out);
      std::rewind(out);
      char buffer[4096];
      std::size_t got = 0;
      while ((got = std::fread(buffer, 1, sizeof buffer, out)) > 0) text->append(buffer, got);
      std::fclose(out);
    }
    EXPECT_EQ(serial_text, parallel_text);
  }
}

TEST_F(PerfettoExport, ARankOnlyHdf5ReadsIsWrittenInItsTurn) {
  // h5repack stores one rank's MPI calls with the N-bit filter: only HDF5 reads that table,
  // so that rank is encoded by the writing thread, between ranks helpers encoded.
  // Deflate: a filter h5repack has built in (zstd would need our plugin on its path).
  fs::remove_all(job_.directory);
  job_.compression = "deflate:1";
  rocprof::test::write_synthetic_job(job_);
  const std::string rank_file = job_.directory + "/5.h5";
  const std::string repacked = (dir_ / "5.h5").string();
  const std::string command =
      fmt::format("h5repack -f mpi_calls:NBIT '{}' '{}' >/dev/null 2>&1", rank_file, repacked);
  // NOLINTNEXTLINE(concurrency-mt-unsafe): the test runs one thread here
  if (std::system(command.c_str()) != 0) GTEST_SKIP() << "h5repack (hdf5-tools) is not installed";
  fs::rename(repacked, rank_file);
  {
    const std::unique_ptr<Merge> merge = open();
    ASSERT_FALSE(merge->ranks[5].reader().reads_without_hdf5());
    ASSERT_TRUE(merge->ranks[4].reader().reads_without_hdf5());
  }
  const std::string serial = export_with(0);
  EXPECT_TRUE(export_with(3) == serial);
}

TEST_F(PerfettoExport, ARankThatFailsAsideFailsTheExportAsItWouldAlone) {
  auto error_with = [&](std::size_t helpers) {
    std::string message;
    {
      const std::unique_ptr<Merge> merge = open();
      // Checked, then cut short: its chunks are no longer all there when they are read.
      const std::string damaged = job_.directory + "/6.h5";
      fs::resize_file(damaged, fs::file_size(damaged) / 3);
      try {
        export_perfetto(merge->pointers, (dir_ / "failed.pftrace").string(), {}, helpers);
      } catch (const std::exception& error) {
        message = error.what();
      }
    }
    fs::remove_all(job_.directory);  // whole again for the next run
    rocprof::test::write_synthetic_job(job_);
    return message;
  };
  const std::string serial = error_with(0);
  ASSERT_NE(serial.find("6.h5"), std::string::npos) << serial;
  EXPECT_EQ(error_with(3), serial);
}

// --- The message spill, several ranks at once ---------------------------------------------

TEST_F(PerfettoExport, RanksSpilledAtOnceMatchAsRanksSpilledInTurn) {
  // Each rank's endpoints go to a place of their own, reserved in offer order, whatever
  // order the helpers finish in: the sections, the streams' counts and the matching are the
  // ones one thread spilling rank after rank finds. With ranks cut short after their check,
  // the first rank (in offer order) that fails is the one reported, also when a later one's
  // helper is waited for first (2 helpers: rank 8's, then rank 7's).
  struct Spilled {
    std::vector<std::pair<std::int32_t, std::uint64_t>> sections;  // rank, endpoints
    std::map<std::tuple<std::uint64_t, std::int32_t, std::int32_t, std::int32_t>,
             std::pair<std::uint64_t, std::uint64_t>>
        streams;  // by key: sends, receives
    CausalityReport report;
  };
  auto spill_with = [&](std::size_t helpers) {
    const RankSet set = RankSet::open({job_.directory}, {});
    std::vector<AlignedRank> ranks;
    for (const auto& rank : set.ranks()) ranks.emplace_back(rank.rank, *rank.reader);
    EndpointSpill spill((dir_ / fmt::format("spill{}", helpers)).string());
    Spilled got;
    {
      SpillAhead ahead(spill, helpers);
      for (const AlignedRank& rank : ranks)
        if (helpers == 0 || !ahead.offer(rank.rank(), rank.reader())) spill.add(rank);
      ahead.finish();
    }
    const SpillSummary& summary = spill.finish();
    for (const SpillSection& section : summary.sections)
      got.sections.emplace_back(section.rank, section.count);
    for (const StreamCount& stream : summary.streams)
      got.streams[{stream.key.communicator, stream.key.source, stream.key.destination,
                   stream.key.tag}] = {stream.sends, stream.receives};
    const StreamTable table(summary.streams, summary.invisible);
    got.report = check_causality({summary}, table, true);
    return got;
  };
  const Spilled alone = spill_with(0);
  ASSERT_EQ(alone.sections.size(), job_.ranks);
  EXPECT_GT(alone.report.messages, 0U);
  EXPECT_FALSE(alone.report.corrections.empty());
  for (const std::size_t helpers : {1, 3}) {
    const Spilled spilled = spill_with(helpers);
    EXPECT_EQ(spilled.sections, alone.sections) << helpers;
    EXPECT_EQ(spilled.streams, alone.streams) << helpers;
    EXPECT_EQ(spilled.report.messages, alone.report.messages);
    EXPECT_EQ(spilled.report.violations_before, alone.report.violations_before);
    EXPECT_EQ(spilled.report.violations_after, alone.report.violations_after);
    EXPECT_EQ(spilled.report.max_shift_ns, alone.report.max_shift_ns);
    EXPECT_EQ(spilled.report.serialize(), alone.report.serialize()) << helpers;
  }
  // Two ranks cut short after their check: the earlier one's error, with any helpers.
  for (const std::size_t helpers : {1, 2}) {
    fs::remove_all(job_.directory);
    rocprof::test::write_synthetic_job(job_);
    const RankSet set = RankSet::open({job_.directory}, {});
    std::vector<AlignedRank> ranks;
    for (const auto& rank : set.ranks()) ranks.emplace_back(rank.rank, *rank.reader);
    for (const char* name : {"/8.h5", "/7.h5"}) {
      const std::string damaged = job_.directory + name;
      fs::resize_file(damaged, fs::file_size(damaged) / 3);
    }
    EndpointSpill spill((dir_ / "damaged").string());
    SpillAhead ahead(spill, helpers);
    for (const AlignedRank& rank : ranks) ahead.offer(rank.rank(), rank.reader());
    try {
      ahead.finish();
      ADD_FAILURE() << "damaged ranks spilled without an error";
    } catch (const std::exception& error) {
      EXPECT_NE(std::string(error.what()).find("7.h5"), std::string::npos) << error.what();
    }
  }
}

TEST_F(PerfettoExport, ASpillThatCannotBeWrittenSaysSoAndWhere) {
  // The disk fills (here: a file size limit, which fails writes past it with EFBIG): the
  // spill's error names its file and the cause, on the thread that spilled, or at finish()
  // for a helper's rank; nothing is left behind.
  const RankSet set = RankSet::open({job_.directory}, {});
  std::vector<AlignedRank> ranks;
  for (const auto& rank : set.ranks()) ranks.emplace_back(rank.rank, *rank.reader);
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  const auto previous = std::signal(SIGXFSZ, SIG_IGN);  // a failed write, not a killed test
  rlimit small = saved;
  small.rlim_cur = 4096;  // a few hundred endpoints
  for (const std::size_t helpers : {0, 2}) {
    const std::string path = (dir_ / fmt::format("full{}", helpers)).string();
    std::string what;
    {
      EndpointSpill spill(path);
      ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
      try {
        SpillAhead ahead(spill, helpers);
        for (const AlignedRank& rank : ranks)
          if (helpers == 0 || !ahead.offer(rank.rank(), rank.reader())) spill.add(rank);
        ahead.finish();
      } catch (const std::exception& error) {
        what = error.what();
      }
      ::setrlimit(RLIMIT_FSIZE, &saved);
    }
    // The spill is named `path` and a random suffix.
    EXPECT_NE(what.find("writing " + path + "."), std::string::npos) << helpers << ": " << what;
    EXPECT_NE(what.find(" failed: File too large"), std::string::npos) << helpers << ": " << what;
    for (const auto& entry : fs::directory_iterator(dir_))
      EXPECT_NE(entry.path().string().rfind(path, 0), 0U) << entry.path();
  }
  std::signal(SIGXFSZ, previous);
}

}  // namespace
