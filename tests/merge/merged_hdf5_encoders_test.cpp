// The merged HDF5 file with its chunks compressed on several helpers at once, the next
// ranks' rows made ready on helpers, and the first ranks' rows made ready while the messages
// are matched (a head start): every table holds what one thread writes, row for row (chunks go
// out in order whoever compressed them, ranks in order whoever read them), read back through
// HDF5.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "merge/causality/messages.hpp"
#include "merge/causality/stream_table.hpp"
#include "merge/events/aligned_rank.hpp"
#include "merge/export/merged_hdf5.hpp"
#include "merge/input/rank_set.hpp"
#include "merge/parallel/merge_share.hpp"
#include "merge/summary/summary.hpp"
#include "tests/tools/synthetic_job.hpp"
#include "tests/tools/test_dir.hpp"

namespace rocprof::merge {
namespace {

namespace fs = std::filesystem;

// Every dataset of the file: its path and its elements' bytes (in the file's own types).
std::map<std::string, std::vector<std::byte>> read_datasets(const std::string& path) {
  std::map<std::string, std::vector<std::byte>> datasets;
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  EXPECT_GE(file, 0) << path;
  if (file < 0) return datasets;
  auto visit = [](hid_t object, const char* name, const H5O_info_t* info, void* data) -> herr_t {
    if (info->type != H5O_TYPE_DATASET) return 0;
    auto& found = *static_cast<std::map<std::string, std::vector<std::byte>>*>(data);
    const hid_t dataset = H5Dopen2(object, name, H5P_DEFAULT);
    const hid_t type = H5Dget_type(dataset);
    const hid_t space = H5Dget_space(dataset);
    const auto elements = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space));
    std::vector<std::byte>& bytes = found[name];
    if (H5Tis_variable_str(type) > 0) {  // the strings themselves, not their pointers
      std::vector<char*> strings(elements);
      if (elements > 0) H5Dread(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, strings.data());
      for (char* text : strings) {
        const std::string_view view = text == nullptr ? "" : text;
        for (const char c : view) bytes.push_back(static_cast<std::byte>(c));
        bytes.push_back(std::byte{0});
      }
      H5Dvlen_reclaim(type, space, H5P_DEFAULT, strings.data());
    } else {
      bytes.resize(elements * H5Tget_size(type));
      if (elements > 0) H5Dread(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data());
    }
    H5Sclose(space);
    H5Tclose(type);
    H5Dclose(dataset);
    return 0;
  };
  H5Ovisit2(file, H5_INDEX_NAME, H5_ITER_NATIVE, visit, &datasets, H5O_INFO_BASIC);
  H5Fclose(file);
  return datasets;
}

TEST(MergedHdf5Encoders, ChunksCompressedAtOnceWriteTheSameTables) {
  const fs::path dir = rocprof::test::fresh_test_dir("merged_hdf5_encoders");
  rocprof::test::SyntheticJob job;
  job.directory = (dir / "job").string();
  job.ranks = 24;                // small ranks: one-chunk tables, staged on helpers
  job.events_per_rank = 20'000;  // several 64 Ki-row chunks per merged table, the last partial
  job.user_regions = true;
  rocprof::test::write_synthetic_job(job);
  const RankSet set = RankSet::open({job.directory}, {});
  std::vector<AlignedRank> ranks;
  for (const auto& rank : set.ranks()) ranks.emplace_back(rank.rank, *rank.reader);
  std::vector<const AlignedRank*> pointers;
  pointers.reserve(ranks.size());
  for (const AlignedRank& rank : ranks) pointers.push_back(&rank);

  // 1 encoder and no stagers (the merge's thread reads every rank), against 4 encoders and 3
  // stagers (the next ranks' rows made ready on helpers).
  // The summary gathered meanwhile (on helpers, for staged ranks) is printed the same too.
  std::map<std::size_t, std::map<std::string, std::vector<std::byte>>> tables;
  std::map<std::size_t, std::string> summaries;
  for (const std::size_t encoders : {1, 4}) {
    const std::string out = (dir / ("merged" + std::to_string(encoders) + ".h5")).string();
    Summary summary;
    for (const AlignedRank& rank : ranks) summary.watch(rank);
    const std::uint64_t rows =
        export_merged_hdf5(pointers, set.job_id(), out, {}, nullptr, encoders, encoders - 1);
    for (const AlignedRank& rank : ranks) rank.watch({});
    summary.end_watch();
    std::FILE* text = std::tmpfile();
    summary.print(text);
    std::rewind(text);
    char buffer[4096];
    std::size_t got = 0;
    while ((got = std::fread(buffer, 1, sizeof buffer, text)) > 0)
      summaries[encoders].append(buffer, got);
    std::fclose(text);
    EXPECT_GT(rows, 4U * 65536U) << "too few rows for several chunks";
    tables[encoders] = read_datasets(out);
  }
  ASSERT_GT(tables[1].size(), 4U);
  std::size_t large = 0;
  for (const auto& [name, bytes] : tables[1]) {
    ASSERT_TRUE(tables[4].contains(name)) << name;
    EXPECT_TRUE(tables[4].at(name) == bytes) << name << " differs";
    if (bytes.size() > std::size_t{3} * 65536 * 4) ++large;  // 4-byte columns or wider
  }
  EXPECT_GT(large, 0U) << "no table spans several chunks";
  EXPECT_EQ(tables[4].size(), tables[1].size());
  EXPECT_NE(summaries[1].find("MPI_"), std::string::npos) << summaries[1];
  EXPECT_EQ(summaries[4], summaries[1]);
  fs::remove_all(dir);
}

// The summary as printed.
std::string printed(const Summary& summary) {
  std::string text;
  std::FILE* file = std::tmpfile();
  summary.print(file);
  std::rewind(file);
  char buffer[4096];
  std::size_t got = 0;
  while ((got = std::fread(buffer, 1, sizeof buffer, file)) > 0) text.append(buffer, got);
  std::fclose(file);
  return text;
}

// A job whose skewed rank the matching corrects, merged to .h5 as the merge does it: with a
// head start on the ranks' rows before the matching's outcome (the ranks it changes dropped and
// summed up again), or none.
class MergedHdf5HeadStartTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    dir_ = rocprof::test::fresh_test_dir("merged_hdf5_head_start");
    job_.directory = (dir_ / "job").string();
    job_.ranks = 9;
    job_.events_per_rank = 3000;
    // With GPU work (and user regions, whose copies are GPU work too) the first table made
    // ready is the API calls', without it the markers' (whose ranges a shared export counts as
    // they are made ready).
    job_.user_regions = GetParam();
    job_.gpu_aware_allreduce = GetParam();
    job_.skewed_rank = 4;
    job_.skew_ns = 400'000;
    rocprof::test::write_synthetic_job(job_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  struct Result {
    std::map<std::string, std::vector<std::byte>> tables;
    std::string summary;
    std::size_t kept = 0;
  };
  // `threads`: the head start's (0: none); `shared`: the export as the first of a group of
  // merge processes does it (ranges counted and gathered), a group of one.
  Result merge(std::size_t threads, std::size_t stagers, bool shared) const {
    const RankSet set = RankSet::open({job_.directory}, {});
    std::vector<AlignedRank> ranks;
    for (const auto& rank : set.ranks()) ranks.emplace_back(rank.rank, *rank.reader);
    std::vector<const AlignedRank*> pointers;
    pointers.reserve(ranks.size());
    for (const AlignedRank& rank : ranks) pointers.push_back(&rank);
    Summary summary;
    for (const AlignedRank& rank : ranks) summary.watch(rank);
    EndpointSpill spill((dir_ / fmt::format("spill{}{}{}", threads, stagers, shared)).string());
    for (const AlignedRank& rank : ranks) spill.add(rank);
    const SpillSummary& spilled = spill.finish();
    const StreamTable streams(spilled.streams, spilled.invisible);
    std::unique_ptr<MergedHdf5HeadStart> started;
    if (threads > 0) {
      started = std::make_unique<MergedHdf5HeadStart>(pointers, 0, ranks.size(), shared, threads);
      // Every rank made ready (they fit the budget) before the outcome comes.
      for (int wait = 0; wait < 10000 && started->kept_count() < ranks.size(); ++wait)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      EXPECT_EQ(started->kept_count(), ranks.size());
      started->stop();
    }
    const CausalityReport report = check_causality({spilled}, streams, true);
    EXPECT_GT(report.violations_before, 0U) << "the skewed rank should need correcting";
    for (AlignedRank& rank : ranks)
      if (const auto found = report.corrections.find(rank.rank());
          found != report.corrections.end())
        rank.set_correction(found->second);
    Result result;
    if (started) {
      started->drop([&](std::size_t i) { return report.changes(ranks[i].rank()); });
      for (std::size_t i = 0; i < ranks.size(); ++i)
        if (started->started(i) && !started->kept(i)) summary.watch_again(ranks[i]);
      result.kept = started->kept_count();
    }
    MergeShare group_of_one;
    group_of_one.first_rank = 0;
    group_of_one.last_rank = ranks.size();
    group_of_one.gather = [](std::uint64_t mine) { return std::vector<std::uint64_t>{mine}; };
    const std::string out =
        (dir_ / fmt::format("merged_{}_{}_{}.h5", threads, stagers, shared)).string();
    export_merged_hdf5(pointers, set.job_id(), out, {}, shared ? &group_of_one : nullptr, 2,
                       stagers, started.get());
    for (const AlignedRank& rank : ranks) rank.watch({});
    summary.end_watch();
    result.tables = read_datasets(out);
    result.summary = printed(summary);
    return result;
  }

  fs::path dir_;
  rocprof::test::SyntheticJob job_;
};

TEST_P(MergedHdf5HeadStartTest, RowsMadeReadyWhileMatchingWriteTheSameTables) {
  const Result alone = merge(0, 0, false);
  ASSERT_TRUE(alone.tables.contains("ranges/begin_ns"));
  ASSERT_GT(alone.tables.at("ranges/begin_ns").size(), 0U);
  EXPECT_NE(alone.summary.find("MPI_"), std::string::npos) << alone.summary;
  for (const bool shared : {false, true})
    for (const auto& [threads, stagers] : {std::pair{1, 0}, std::pair{3, 0}, std::pair{2, 3}}) {
      const Result ahead = merge(threads, stagers, shared);
      const std::string what =
          fmt::format("{} threads, {} stagers{}", threads, stagers, shared ? ", shared" : "");
      EXPECT_GT(ahead.kept, 0U) << what << ": no rank was kept, nothing tested their rows";
      EXPECT_LT(ahead.kept, static_cast<std::size_t>(job_.ranks))
          << what << ": no rank was dropped, nothing tested a corrected rank";
      EXPECT_EQ(ahead.tables.size(), alone.tables.size()) << what;
      for (const auto& [name, bytes] : alone.tables) {
        ASSERT_TRUE(ahead.tables.contains(name)) << what << ": " << name;
        EXPECT_TRUE(ahead.tables.at(name) == bytes) << what << ": " << name << " differs";
      }
      EXPECT_EQ(ahead.summary, alone.summary) << what;
    }
}

INSTANTIATE_TEST_SUITE_P(WithAndWithoutGpuWork, MergedHdf5HeadStartTest, ::testing::Bool());

}  // namespace
}  // namespace rocprof::merge
