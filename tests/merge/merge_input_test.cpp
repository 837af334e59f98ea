// The merge's input checks and clock model, on synthetic jobs with known clock offsets and
// drift and on every kind of bad input.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <span>
#include <stdexcept>
#include <thread>
#include <vector>

#include "lib/format/background_worker.hpp"
#include "lib/format/hdf5_util.hpp"
#include "merge/clock/clock_model.hpp"
#include "merge/clock/step_function.hpp"
#include "merge/events/aligned_rank.hpp"
#include "merge/input/rank_digest.hpp"
#include "merge/input/rank_set.hpp"
#include "merge/summary/summary.hpp"
#include "merge/summary/watch_workers.hpp"
#include "tests/tools/synthetic_job.hpp"
#include "tests/tools/test_dir.hpp"

namespace {

namespace fs = std::filesystem;
using namespace rocprof::merge;
using rocprof::test::SyntheticJob;

class MergeInput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = rocprof::test::fresh_test_dir("merge_input");
    job_.directory = (dir_ / "job").string();
    job_.ranks = 4;
    job_.events_per_rank = 2000;
    rocprof::test::write_synthetic_job(job_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string job_dir() const { return job_.directory; }
  static std::string error_of(const std::vector<std::string>& inputs,
                              const RankSetOptions& options = {}) {
    try {
      RankSet::open(inputs, options);
    } catch (const InputError& error) {
      return error.what();
    }
    return "";
  }
  fs::path dir_;
  SyntheticJob job_;
};

TEST(RangeCount, CountsWhatTheMarkerVisitHandsOut) {
  // User regions and roctx ranges, nested, on several threads (the synthetic job's markers).
  const fs::path dir = rocprof::test::fresh_test_dir("range_count");
  SyntheticJob job;
  job.directory = (dir / "job").string();
  job.ranks = 3;
  job.events_per_rank = 5000;
  job.user_regions = true;
  rocprof::test::write_synthetic_job(job);
  const RankSet set = RankSet::open({job.directory}, {});
  for (const RankSet::Rank& rank : set.ranks()) {
    const AlignedRank aligned(rank.rank, *rank.reader);
    std::uint64_t visited = 0;
    aligned.for_each_marker([](const rocprof::format::MarkerRow&) {},
                            [&](const Range&) { ++visited; });
    aligned.done();
    EXPECT_GT(visited, 100U);
    // Every marker row, in the table's order, as an exporter copying the table sees them.
    std::vector<rocprof::format::MarkerRow> markers;
    rank.reader->read(0, rank.reader->row_count<rocprof::format::MarkerRow>(), markers);
    rank.reader->release();
    rocprof::merge::RangeCounter counter;
    for (const auto& marker : markers) counter.add(marker);
    EXPECT_EQ(counter.count(), visited) << rank.path;
    EXPECT_EQ(aligned.range_count(), visited) << rank.path;  // a pass of its own
  }
  fs::remove_all(dir);
}

TEST_F(MergeInput, OpensAJobInRankOrder) {
  const RankSet set = RankSet::open({job_dir()}, {});
  ASSERT_EQ(set.ranks().size(), 4U);
  for (int r = 0; r < 4; ++r) EXPECT_EQ(set.ranks()[r].rank, r);
  EXPECT_EQ(set.job_id(), "synthetic");
  EXPECT_EQ(set.job_size(), 4);
  EXPECT_TRUE(set.skipped().empty());
}

TEST_F(MergeInput, ClockModelRecoversKnownOffsetsAndDriftExactly) {
  const RankSet set = RankSet::open({job_dir()}, {});
  for (const auto& rank : set.ranks()) {
    const ClockModel model(rank.reader->read_all<rocprof::format::ClockSampleRow>());
    EXPECT_EQ(model.sample_count(), 2U);
    // Every reference instant across the run maps back exactly (linear drift is linear).
    for (std::uint64_t step = 0; step <= 10; ++step) {
      const std::uint64_t reference = job_.start_ns + step * 19'999;
      const std::uint64_t local = rocprof::test::synthetic_local_ns(job_, rank.rank, reference);
      EXPECT_NEAR(static_cast<double>(model.to_reference(local)), static_cast<double>(reference),
                  1.0)
          << "rank " << rank.rank << " step " << step;
    }
  }
}

TEST_F(MergeInput, RowsReadAheadAreTheRowsReadInPlace) {
  // An exporter reads the next rank's first chunks on a helper while it writes this one:
  // what the visits then hand out is exactly what they read themselves, aligned once.
  const RankSet set = RankSet::open({job_dir()}, {});
  const RankSet::Rank& rank = set.ranks()[2];
  auto visit_all = [](const AlignedRank& aligned) {
    std::vector<std::uint64_t> times;
    aligned.for_each_mpi_call([&](const rocprof::format::MpiCallRow& row) {
      times.push_back(row.begin_ns);
      times.push_back(row.end_ns);
      times.push_back(static_cast<std::uint64_t>(row.peer));
    });
    aligned.for_each_marker(
        [&](const rocprof::format::MarkerRow& mark) { times.push_back(mark.timestamp_ns); },
        [&](const Range& range) {
          times.push_back(range.begin_ns);
          times.push_back(range.end_ns);
        });
    aligned.done();
    return times;
  };
  const AlignedRank in_place(rank.rank, *rank.reader);
  const std::vector<std::uint64_t> expected = visit_all(in_place);
  ASSERT_GT(expected.size(), 3000U);
  const AlignedRank ahead(rank.rank, *rank.reader);
  ahead.read_ahead();
  // Meanwhile, as an exporter does: another rank is read, and this rank's small tables.
  const AlignedRank other(set.ranks()[1].rank, *set.ranks()[1].reader);
  EXPECT_GT(visit_all(other).size(), 3000U);
  EXPECT_EQ(rank.reader->read_all<rocprof::format::CommunicatorRow>().size(), 1U);
  EXPECT_EQ(visit_all(ahead), expected);
  // Read ahead and never visited: done() waits for the helper before the file closes.
  const AlignedRank dropped(rank.rank, *rank.reader);
  dropped.read_ahead();
  dropped.done();
  EXPECT_EQ(visit_all(dropped), expected);
}

TEST_F(MergeInput, ADigestSentAsBytesAnswersAsTheFileDoes) {
  // What a parallel merge's process tells the others about a file it checked.
  const rocprof::format::RankFileReader file(job_dir() + "/2.h5");
  ByteWriter out;
  put_digest(out, file.digest());
  const std::vector<std::byte> bytes = out.take();
  ByteReader in(bytes);
  const rocprof::format::RankFileReader copy(get_digest(in));
  EXPECT_TRUE(in.done());
  EXPECT_TRUE(copy.from_digest());
  EXPECT_FALSE(file.from_digest());
  EXPECT_EQ(copy.path(), file.path());
  EXPECT_EQ(copy.metadata().rank, 2);
  EXPECT_EQ(copy.metadata().hostname, file.metadata().hostname);
  EXPECT_EQ(copy.metadata().command_line, file.metadata().command_line);
  EXPECT_EQ(copy.metadata().traced_ranks, file.metadata().traced_ranks);
  EXPECT_EQ(copy.metadata().start_realtime_ns, file.metadata().start_realtime_ns);
  EXPECT_EQ(copy.status().complete, file.status().complete);
  EXPECT_EQ(copy.version_major(), file.version_major());
  EXPECT_EQ(copy.version_minor(), file.version_minor());
  ASSERT_EQ(copy.string_count(), file.string_count());
  for (rocprof::format::StringId id = 0; id < file.string_count(); ++id)
    EXPECT_EQ(copy.string(id), file.string(id));
  ASSERT_EQ(copy.clock_samples().size(), file.clock_samples().size());
  EXPECT_EQ(copy.clock_samples().back().offset_ns, file.clock_samples().back().offset_ns);
  for (const rocprof::format::Table* table : rocprof::format::all_tables())
    EXPECT_EQ(copy.row_count(*table), file.row_count(*table)) << table->name;
  const auto communicators = copy.read_all<rocprof::format::CommunicatorRow>();
  const auto expected = file.read_all<rocprof::format::CommunicatorRow>();
  ASSERT_EQ(communicators.size(), expected.size());
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(communicators[0].communicator, expected[0].communicator);
  EXPECT_EQ(communicators[0].creator, expected[0].creator);
  // Its rows are another process's to read: asking is an error naming the file.
  try {
    copy.read_all<rocprof::format::MpiCallRow>();
    FAIL() << "rows were read from a digest";
  } catch (const rocprof::format::FormatError& error) {
    EXPECT_NE(std::string(error.what()).find("2.h5"), std::string::npos) << error.what();
  }
  // A damaged message is refused.
  ByteReader cut(std::span<const std::byte>(bytes).first(bytes.size() / 2));
  EXPECT_THROW(get_digest(cut), std::runtime_error);
  // So is a digest that does not describe the file's tables, or lacks its communicators.
  auto wrong_tables = file.digest();
  wrong_tables.rows.pop_back();
  EXPECT_THROW(rocprof::format::RankFileReader{std::move(wrong_tables)},
               rocprof::format::FormatError);
  auto no_communicators = file.digest();
  no_communicators.communicators.clear();
  EXPECT_THROW(rocprof::format::RankFileReader{std::move(no_communicators)},
               rocprof::format::FormatError);
}

TEST(RankSetOrder, FilesAreCheckedInTheOrderTheirNamesNumberThem) {
  const std::vector<std::string> paths = {"d/10.h5", "d/2.h5", "d/rank-003.h5", "d/1.h5",
                                          "c/5.h5",  "d/x.h5", "d/02.h5"};
  std::vector<std::string> ordered;
  for (const std::size_t i : RankSet::numbered_order(paths)) ordered.push_back(paths[i]);
  // By directory, then the name before the number, then the number's value.
  EXPECT_EQ(ordered, (std::vector<std::string>{"c/5.h5", "d/1.h5", "d/02.h5", "d/2.h5", "d/10.h5",
                                               "d/rank-003.h5", "d/x.h5"}));
}

TEST(ClockModelTest, HoldsTheEdgesAndKeepsTheMoreCertainOfTwinSamples) {
  std::vector<rocprof::format::ClockSampleRow> samples(3);
  samples[0] = {1000, -50, 10, 5, 0};
  samples[1] = {3000, -150, 10, 9, 0};
  samples[2] = {1000, -40, 4, 2, 0};  // same instant, more certain: wins
  const ClockModel model(samples);
  EXPECT_EQ(model.offset_at(0), -40);
  EXPECT_EQ(model.offset_at(1000), -40);
  EXPECT_EQ(model.offset_at(2000), -95);
  EXPECT_EQ(model.offset_at(9000), -150);
  EXPECT_EQ(model.uncertainty_at(2000), 9U);
  EXPECT_EQ(ClockModel().to_reference(1234), 1234U);
}

// The lookups that align a pass of rows give what to_reference and StepFunction::at give, for
// times in order, out of order, on the samples and steps themselves and outside them all.
TEST(ClockModelTest, LookupsGiveTheSameTimesAsTheSearch) {
  std::vector<rocprof::format::ClockSampleRow> samples;
  std::int64_t offset = 7'000'000'000;
  for (std::uint64_t t = 5'000'000; t < 400'000'000; t += 37'000'011) {
    offset += static_cast<std::int64_t>(t % 3001) - 1500;  // drift, both ways
    samples.push_back({t, offset, 10, 20, 0});
  }
  const ClockModel model(samples);
  StepFunction correction;
  correction.raise(7'100'000'000, 300);
  correction.raise(7'250'000'000, 40);
  correction.raise(7'300'000'123, 5);
  std::vector<std::uint64_t> times = {0, 1, ~std::uint64_t{0} - 1, ~std::uint64_t{0}};
  for (const auto& sample : samples) {
    times.push_back(sample.local_ns);
    times.push_back(sample.local_ns - 1);
  }
  for (std::uint64_t t = 0; t < 450'000'000; t += 999'983) times.push_back(t);  // in order
  std::uint64_t state = 12345;
  for (int i = 0; i < 20000; ++i) {  // anywhere
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    times.push_back((state >> 20) % 500'000'000);
  }
  ClockModel::Lookup clock(model);
  StepFunction::Lookup step(correction);
  std::size_t differences = 0;
  for (const std::uint64_t t : times) {
    const std::uint64_t aligned = model.to_reference(t);
    if (clock.to_reference(t) != aligned) ++differences;
    if (step.at(aligned) != correction.at(aligned)) ++differences;
    for (const auto& [when, shift] : correction.steps())
      for (const std::uint64_t near : {when - 1, when, when + 1})
        if (step.at(near) != correction.at(near)) ++differences;
  }
  EXPECT_EQ(differences, 0U);
  // Several segments and every step were used: the lookups moved between them.
  EXPECT_GT(samples.size(), 8U);
  EXPECT_EQ(correction.steps().size(), 3U);
  const ClockModel none;
  ClockModel::Lookup identity(none);
  EXPECT_EQ(identity.to_reference(1234), 1234U);
}

TEST_F(MergeInput, MissingRanksAreAnErrorUnlessAllowed) {
  fs::remove(fs::path(job_dir()) / "2.h5");
  EXPECT_NE(error_of({job_dir()}).find("1 of the job's 4 ranks has no file (rank 2)"),
            std::string::npos);
  RankSetOptions options;
  options.allow_missing = true;
  const RankSet set = RankSet::open({job_dir()}, options);
  EXPECT_EQ(set.ranks().size(), 3U);
  ASSERT_EQ(set.skipped().size(), 1U);
  EXPECT_NE(set.skipped()[0].find("rank 2)"), std::string::npos);
}

TEST_F(MergeInput, BadFilesNameTheFileAndCanBeSkipped) {
  const std::string empty = (fs::path(job_dir()) / "9.h5").string();
  std::ofstream(empty).close();
  const std::string error = error_of({job_dir()});
  EXPECT_NE(error.find(empty), std::string::npos) << error;
  EXPECT_NE(error.find("empty file"), std::string::npos) << error;
  EXPECT_NE(error.find("--skip-bad"), std::string::npos) << error;
  RankSetOptions options;
  options.skip_bad = true;
  const RankSet set = RankSet::open({job_dir()}, options);
  EXPECT_EQ(set.ranks().size(), 4U);
  ASSERT_EQ(set.skipped().size(), 1U);
  EXPECT_NE(set.skipped()[0].find(empty), std::string::npos);
}

// Ranks a run chose not to trace (rocprof-mpi --mpi-ranks, recorded in each file) have no
// file and are not missing: said, not refused. A traced rank without its file still is.
TEST_F(MergeInput, RanksLeftOutOnPurposeAreNotMissing) {
  SyntheticJob subset = job_;
  subset.directory = (dir_ / "subset").string();
  subset.traced_ranks = "0,2";
  rocprof::test::write_synthetic_job(subset);
  const RankSet set = RankSet::open({subset.directory}, {});
  ASSERT_EQ(set.ranks().size(), 2U);
  EXPECT_EQ(set.ranks()[1].rank, 2);
  EXPECT_TRUE(set.skipped().empty());
  EXPECT_EQ(set.untraced(), "2 of the job's 4 ranks not traced (ranks 1,3: the run traced 0,2)");
  fs::remove(fs::path(subset.directory) / "2.h5");
  const std::string error = error_of({subset.directory});
  EXPECT_NE(error.find("1 of the job's 4 ranks has no file (rank 2)"), std::string::npos) << error;
  // A list that does not parse (a damaged file) leaves no rank out on purpose; the refusal
  // says why the ranks count as missing.
  const std::string first = (fs::path(subset.directory) / "0.h5").string();
  {
    const rocprof::format::Handle file(H5Fopen(first.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    ASSERT_GE(H5Adelete(file.get(), "traced_ranks"), 0);
    ASSERT_TRUE(rocprof::format::write_attribute(file.get(), "traced_ranks", std::string("0,x")));
  }
  const std::string damaged = error_of({subset.directory});
  EXPECT_NE(damaged.find("3 of the job's 4 ranks have no file (ranks 1,2,3; " + first +
                         "'s traced_ranks '0,x' is not a rank list, so every rank counts as "
                         "traced)"),
            std::string::npos)
      << damaged;
}

// rocprof-merge's .h5 output written into the rank files' directory is left out, said, and no
// error: merging the directory again needs no --skip-bad. Alone, it is nothing to merge.
TEST_F(MergeInput, AMergedTraceBesideTheRankFilesIsLeftOut) {
  const std::string merged = job_dir() + "/merged.h5";
  {
    const rocprof::format::Handle file(
        H5Fcreate(merged.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    ASSERT_TRUE(rocprof::format::write_attribute(
        file.get(), "format", std::string(rocprof::format::kMergedTraceFormatName)));
  }
  const RankSet set = RankSet::open({job_dir()}, {});
  EXPECT_EQ(set.ranks().size(), 4U);
  ASSERT_EQ(set.skipped().size(), 1U);
  EXPECT_EQ(set.skipped()[0],
            "left out " + merged + ": a merged trace (rocprof-merge's output), not a rank file");
  const std::string alone = error_of({merged});
  EXPECT_NE(alone.find("nothing to merge: left out " + merged), std::string::npos) << alone;
  fs::remove(merged);
}

// One file named twice (its directory and itself, or through a link) is one rank file, not
// a duplicate rank.
TEST_F(MergeInput, AFileNamedTwiceIsMergedOnce) {
  const fs::path one = fs::path(job_dir()) / "1.h5";
  fs::create_symlink(one, dir_ / "link-to-1.h5");
  const std::vector<std::string> files =
      RankSet::list({job_dir(), one.string(), (dir_ / "link-to-1.h5").string(),
                     job_dir() + "/../" + fs::path(job_dir()).filename().string()});
  EXPECT_EQ(files.size(), 4U);
  const RankSet set =
      RankSet::open({job_dir(), one.string(), (dir_ / "link-to-1.h5").string()}, {});
  EXPECT_EQ(set.ranks().size(), 4U);
}

TEST_F(MergeInput, DuplicateRanksAndMixedJobsAreRefused) {
  fs::copy_file(fs::path(job_dir()) / "1.h5", dir_ / "copy-of-1.h5");
  const std::string duplicate = error_of({job_dir(), (dir_ / "copy-of-1.h5").string()});
  EXPECT_NE(duplicate.find("rank 1 is also in"), std::string::npos) << duplicate;
  EXPECT_NE(duplicate.find("a copy?"), std::string::npos) << duplicate;  // not one directory
  fs::copy_file(fs::path(job_dir()) / "2.h5", fs::path(job_dir()) / "2-again.h5");
  const std::string same_directory = error_of({job_dir()});
  EXPECT_NE(same_directory.find("two runs in one directory?"), std::string::npos) << same_directory;
  fs::remove(fs::path(job_dir()) / "2-again.h5");

  SyntheticJob other = job_;
  other.directory = (dir_ / "other").string();
  other.job_id = "another";
  rocprof::test::write_synthetic_job(other);
  fs::remove(fs::path(job_dir()) / "3.h5");
  const std::string mixed = error_of({job_dir(), other.directory + "/3.h5"});
  EXPECT_NE(mixed.find("files of different runs"), std::string::npos) << mixed;
  EXPECT_NE(mixed.find("another"), std::string::npos) << mixed;
}

// Work started on a checked file (the merge reads its messages on a helper) must end before a
// refused set's readers go: the set calls `refused` while every reader `checked` saw is alive,
// and only when it refuses. Here the helper reads each checked file's MPI calls after a pause,
// so a reader gone too early is read after its end (ThreadSanitizer's tsan.read_ahead runs
// this test too, and reports that).
TEST_F(MergeInput, ARefusedSetLetsWorkOnItsReadersEndFirst) {
  rocprof::format::BackgroundWorker helper;
  std::vector<std::int32_t> ranks_read;
  int refusals = 0;
  auto checked = [&](std::int32_t, const rocprof::format::RankFileReader& reader) {
    helper.wait();
    helper.start([&ranks_read, &reader] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (!reader.read_all<rocprof::format::MpiCallRow>().empty())
        ranks_read.push_back(reader.metadata().rank);
    });
  };
  auto refused = [&] {
    ++refusals;
    helper.wait_quietly();
  };
  {
    const RankSet fine = RankSet::open({job_dir()}, {}, checked, refused);
    helper.wait();
  }
  EXPECT_EQ(refusals, 0);
  EXPECT_EQ(ranks_read, (std::vector<std::int32_t>{0, 1, 2, 3}));

  ranks_read.clear();
  fs::copy_file(fs::path(job_dir()) / "1.h5", dir_ / "z-copy-of-1.h5");
  EXPECT_THROW(RankSet::open({job_dir(), (dir_ / "z-copy-of-1.h5").string()}, {}, checked, refused),
               InputError);
  EXPECT_EQ(refusals, 1);
  // The last rank checked before the refusal was read to the end, its reader still there.
  EXPECT_EQ(ranks_read, (std::vector<std::int32_t>{0, 1, 2, 3}));
}

TEST_F(MergeInput, MissingPathsAndEmptyDirectories) {
  EXPECT_NE(error_of({(dir_ / "nowhere").string()}).find("no such file or directory"),
            std::string::npos);
  fs::create_directories(dir_ / "empty");
  EXPECT_NE(error_of({(dir_ / "empty").string()}).find("no rank files"), std::string::npos);
}

TEST_F(MergeInput, WrongVersionIsRefusedWithTheFileName) {
  const std::string path = (fs::path(job_dir()) / "0.h5").string();
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  const hid_t attribute = H5Aopen(file, "format_version", H5P_DEFAULT);
  const unsigned version[2] = {9, 0};
  H5Awrite(attribute, H5T_NATIVE_UINT, version);
  H5Aclose(attribute);
  H5Fclose(file);
  const std::string error = error_of({job_dir()});
  EXPECT_NE(error.find(path), std::string::npos);
  EXPECT_NE(error.find("format version 9.0 is not supported"), std::string::npos) << error;
}

TEST_F(MergeInput, PartialSummariesAddUpAndDamagedOnesAreRefused) {
  // Two merge processes' summaries of two ranks each add up to the summary of all four.
  const RankSet set = RankSet::open({job_dir()}, {});
  std::vector<AlignedRank> ranks;
  for (const auto& rank : set.ranks()) ranks.emplace_back(rank.rank, *rank.reader);
  Summary whole;
  Summary first;
  Summary second;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    whole.add(ranks[i]);
    (i < 2 ? first : second).add(ranks[i]);
  }
  Summary merged;
  merged.merge(first.serialize());
  merged.merge(second.serialize());
  ASSERT_EQ(merged.mpi().size(), whole.mpi().size());
  for (const auto& [name, per_rank] : whole.mpi())
    for (const auto& [rank, stat] : per_rank) {
      EXPECT_EQ(merged.mpi().at(name).at(rank).count, stat.count) << name;
      EXPECT_DOUBLE_EQ(merged.mpi().at(name).at(rank).total_ns, stat.total_ns) << name;
    }
  EXPECT_EQ(merged.regions().size(), whole.regions().size());
  // Bytes cut short, or with something after the end, are an error, not a silent summary.
  std::vector<std::byte> bytes = first.serialize();
  Summary damaged;
  EXPECT_THROW(damaged.merge(std::span(bytes).first(bytes.size() / 2)), std::runtime_error);
  bytes.push_back(std::byte{0});
  EXPECT_THROW(damaged.merge(bytes), std::runtime_error);
  // Refused whole: nothing read before the damage was added.
  EXPECT_TRUE(damaged.mpi().empty());
  EXPECT_TRUE(damaged.regions().empty());
}

TEST(WatchWorkers, SummaryAddedUpOnWorkersIsTheSummaryAddedUpInline) {
  // Regions, MPI calls, GPU work and counter samples: every kind a watcher sees.
  const fs::path dir = rocprof::test::fresh_test_dir("watch_workers");
  SyntheticJob job;
  job.directory = (dir / "job").string();
  job.ranks = 5;
  job.events_per_rank = 20000;
  job.user_regions = true;
  job.counter_samples = 200;
  job.gpu_aware_allreduce = true;
  rocprof::test::write_synthetic_job(job);
  const RankSet set = RankSet::open({job.directory}, {});
  const auto summed = [&](unsigned threads) {
    Summary summary;
    summary.gather_wait_states(true);
    summary.expect_ranks(set.ranks().size());
    summary.watch_on_threads(threads);
    summary.finish_on_threads(threads + 1);  // the ranks' inputs finished on 1, 2, 4 threads
    for (const RankSet::Rank& rank : set.ranks()) summary.add(AlignedRank(rank.rank, *rank.reader));
    rocprof::merge::ByteWriter inputs;
    for (const RankWaitInput& input : summary.take_wait_inputs()) input.put(inputs);
    return std::pair{summary.serialize(), inputs.take()};
  };
  const auto inline_parts = summed(0);
  ASSERT_GT(inline_parts.second.size(), 100000U);  // the analysis's inputs were gathered
  for (const unsigned threads : {1U, 3U}) {
    const auto worker_parts = summed(threads);
    EXPECT_TRUE(worker_parts.first == inline_parts.first) << threads << " threads";
    EXPECT_TRUE(worker_parts.second == inline_parts.second) << threads << " threads";
  }
  fs::remove_all(dir);
}

TEST(WatchWorkers, ARanksDoingsDoNotDependOnHowManyRanksItsProcessWatches) {
  // A rank's share of the doings follows the job's ranks: a process that watches 2 of the
  // job's 6 ranks keeps the same doings of them as one that watches all 6, joined alike
  // once a rank is past its share (the job is told to have so many ranks that each share is
  // the least, and the ranks have more doings than that).
  const fs::path dir = rocprof::test::fresh_test_dir("watch_workers_share");
  SyntheticJob job;
  job.directory = (dir / "job").string();
  job.ranks = 6;
  job.events_per_rank = 20000;
  job.user_regions = true;
  rocprof::test::write_synthetic_job(job);
  const RankSet set = RankSet::open({job.directory}, {});
  constexpr std::size_t kManyRanks = 1U << 20;
  const auto gathered = [&](std::size_t watched, std::size_t job_ranks) {
    Summary summary;
    summary.gather_wait_states(true);
    summary.expect_ranks(watched);
    if (job_ranks > 0) summary.share_doings_among(job_ranks);
    summary.watch_on_threads(2);
    for (std::size_t i = 0; i < watched; ++i)
      summary.add(AlignedRank(set.ranks()[i].rank, *set.ranks()[i].reader));
    std::vector<RankWaitInput> inputs = summary.take_wait_inputs();
    std::sort(inputs.begin(), inputs.end(),
              [](const RankWaitInput& a, const RankWaitInput& b) { return a.rank < b.rank; });
    inputs.resize(2);  // ranks 0 and 1
    return inputs;
  };
  const auto bytes = [](const std::vector<RankWaitInput>& inputs) {
    rocprof::merge::ByteWriter out;
    for (const RankWaitInput& input : inputs) input.put(out);
    return out.take();
  };
  const std::vector<RankWaitInput> of_all = gathered(6, kManyRanks);
  const std::vector<RankWaitInput> of_two = gathered(2, kManyRanks);
  for (const RankWaitInput& input : of_all) {
    EXPECT_GT(input.joined_within_ns, 0U) << "rank " << input.rank << " was not past its share";
    EXPECT_LE(input.doings.size(), WaitInputGatherer::kLeastDoingsPerRank);
  }
  EXPECT_TRUE(bytes(of_all) == bytes(of_two));
  // Shared among the watched ranks only, the two would keep more of each.
  const std::vector<RankWaitInput> alone = gathered(2, 0);
  EXPECT_EQ(alone[0].joined_within_ns, 0U);
  EXPECT_GT(alone[0].doings.size(), of_two[0].doings.size());
  fs::remove_all(dir);
}

TEST(WatchWorkers, WaitInputsSpilledPastTheBudgetAnalyseAsHeldOnes) {
  // Several ranks' message ends spilled at once from the workers' threads, then taken in
  // rounds: the same waits and path as the inputs held whole.
  const fs::path dir = rocprof::test::fresh_test_dir("watch_workers_spill");
  SyntheticJob job;
  job.directory = (dir / "job").string();
  job.ranks = 6;
  job.events_per_rank = 20000;
  job.late_rank = 2;
  job.late_ns = 200000;
  rocprof::test::write_synthetic_job(job);
  const RankSet set = RankSet::open({job.directory}, {});
  const auto analysed = [&](std::size_t budget, std::shared_ptr<EndSpill> spill) {
    Summary summary;
    summary.gather_wait_states(true);
    summary.expect_ranks(set.ranks().size());
    summary.watch_on_threads(3);
    summary.finish_on_threads(3);  // the last ends spilled from several threads at once
    summary.spill_wait_states(spill, budget);
    std::vector<AlignedRank> ranks;
    ranks.reserve(set.ranks().size());
    for (const RankSet::Rank& rank : set.ranks()) ranks.emplace_back(rank.rank, *rank.reader);
    for (const AlignedRank& rank : ranks) summary.watch(rank);
    for (const AlignedRank& rank : ranks) {  // read as the sinks do, each rank once
      rank.for_each_mpi_call([](const auto&) {});
      rank.for_each_marker([](const auto&) {}, [](const auto&) {});
      rank.watch({});
      rank.done();
    }
    summary.end_watch();
    std::vector<RankWaitInput> inputs = summary.take_wait_inputs();
    std::size_t held = 0;  // ends and calls still in memory once every rank was read
    for (const RankWaitInput& input : inputs)
      held += input.messages.size() + input.collectives.size();
    summary.analyse(std::move(inputs), SingleProcessExchange(), 2);
    return std::tuple{summary.wait_states(), summary.critical_path(),
                      summary.analysis_spilled_bytes(), held};
  };
  const auto [held_waits, held_path, held_spilled, held_items] = analysed(kAnalysisMemory, nullptr);
  ASSERT_GT(held_waits.edges.size(), 1000U);
  EXPECT_EQ(held_spilled, 0U);
  EXPECT_GT(held_items, 0U);
  EXPECT_EQ(held_waits.rounds, 1U);
  const auto spill = std::make_shared<EndSpill>(dir.string(), 64 << 10);
  const auto [waits, path, spilled, items] = analysed(64 << 10, spill);
  EXPECT_GT(spilled, 0U);
  EXPECT_EQ(items, 0U);                     // what was still held went to the file too
  EXPECT_EQ(waits.spilled_bytes, spilled);  // every block the gatherers spilled, read back
  EXPECT_GT(waits.rounds, 1U);
  EXPECT_EQ(waits.waits.size(), held_waits.waits.size());
  for (const auto& [key, totals] : held_waits.waits) {
    const auto found = waits.waits.find(key);
    ASSERT_NE(found, waits.waits.end());
    EXPECT_EQ(found->second.count, totals.count);
    EXPECT_EQ(found->second.total_ns, totals.total_ns);
  }
  const std::vector<WaitEdge> edges = waits.edges.all();
  const std::vector<WaitEdge> held_edges = held_waits.edges.all();
  ASSERT_EQ(edges.size(), held_edges.size());
  for (std::size_t i = 0; i < edges.size(); ++i)
    EXPECT_EQ(
        std::tie(edges[i].waiting, edges[i].from, edges[i].to, edges[i].cause),
        std::tie(held_edges[i].waiting, held_edges[i].from, held_edges[i].to, held_edges[i].cause));
  EXPECT_EQ(path.length_ns, held_path.length_ns);
  EXPECT_EQ(path.by_activity, held_path.by_activity);
  fs::remove_all(dir);
}

TEST(WatchWorkers, EachRanksRowsArriveInOrderWhileRanksAreReadAtOnce) {
  constexpr int kRanks = 8;
  constexpr std::uint64_t kRows = 20000;
  WatchWorkers workers(3);
  struct Seen {
    std::vector<std::uint64_t> rows;      // begin time * 8 + kind
    std::vector<std::uint64_t> mpi_rows;  // a second watcher's, of MPI calls only
    std::vector<std::thread::id> first_threads;
  };
  std::vector<Seen> seen(kRanks);
  std::vector<WatchWorkers::Relay> relays;
  for (int r = 0; r < kRanks; ++r) {
    AlignedRank::Watcher target;
    Seen& mine = seen[static_cast<std::size_t>(r)];
    target.mpi_calls = [&mine](std::span<const rocprof::format::MpiCallRow> rows) {
      for (const auto& row : rows) mine.rows.push_back(row.begin_ns * 8);
    };
    target.ranges = [&mine](std::span<const Range> rows) {
      for (const auto& row : rows) mine.rows.push_back(row.begin_ns * 8 + 1);
    };
    target.api_calls = [&mine](std::span<const rocprof::format::ApiCallRow> rows) {
      for (const auto& row : rows) mine.rows.push_back(row.begin_ns * 8 + 4);
    };
    AlignedRank::Watcher mpi_only;
    mpi_only.mpi_calls = [&mine](std::span<const rocprof::format::MpiCallRow> rows) {
      for (const auto& row : rows) mine.mpi_rows.push_back(row.begin_ns);
    };
    std::vector<WatchWorkers::Target> targets;
    targets.push_back({std::move(target), [&mine](WatchedKind) {
                         mine.first_threads.push_back(std::this_thread::get_id());
                       }});
    targets.push_back({std::move(mpi_only), {}});
    relays.push_back(workers.relay(std::move(targets)));
  }
  // Two reading threads, each reading half the ranks, the kinds interleaved: runs of 1 to
  // 5000 rows of a kind.
  const auto kind_of = [](std::uint64_t i) { return (i / 7 + i / 5000) % 3; };
  std::vector<std::thread> readers;
  std::vector<std::thread::id> reader_ids(2);
  for (int t = 0; t < 2; ++t)
    readers.emplace_back([&, t] {
      reader_ids[static_cast<std::size_t>(t)] = std::this_thread::get_id();
      for (std::uint64_t i = 0; i < kRows;) {
        std::uint64_t end = i + 1;
        while (end < kRows && kind_of(end) == kind_of(i)) ++end;
        for (int r = t; r < kRanks; r += 2) {
          const AlignedRank::Watcher& watcher = relays[static_cast<std::size_t>(r)].watcher;
          if (kind_of(i) == 0) {
            std::vector<rocprof::format::MpiCallRow> rows(end - i);
            for (std::uint64_t j = i; j < end; ++j) rows[j - i].begin_ns = j;
            watcher.mpi_calls(rows);
          } else if (kind_of(i) == 1) {
            std::vector<Range> rows(end - i);
            for (std::uint64_t j = i; j < end; ++j) rows[j - i].begin_ns = j;
            watcher.ranges(rows);
          } else {
            std::vector<rocprof::format::ApiCallRow> rows(end - i);
            for (std::uint64_t j = i; j < end; ++j) rows[j - i].begin_ns = j;
            watcher.api_calls(rows);
          }
        }
        i = end;
      }
    });
  for (std::thread& reader : readers) reader.join();
  for (WatchWorkers::Relay& relay : relays) WatchWorkers::flush(*relay.feed);
  workers.wait();
  for (int r = 0; r < kRanks; ++r) {
    const Seen& mine = seen[static_cast<std::size_t>(r)];
    ASSERT_EQ(mine.rows.size(), kRows) << "rank " << r;
    std::vector<std::uint64_t> mpi_rows;
    for (std::uint64_t i = 0; i < kRows; ++i) {
      const std::uint64_t kind = kind_of(i) == 0 ? 0 : kind_of(i) == 1 ? 1 : 4;
      ASSERT_EQ(mine.rows[i], i * 8 + kind) << "rank " << r << " row " << i;
      if (kind == 0) mpi_rows.push_back(i);
    }
    ASSERT_EQ(mine.mpi_rows, mpi_rows) << "rank " << r;
    // Once per kind, on the thread that read the rank.
    ASSERT_EQ(mine.first_threads.size(), 3U);
    for (const std::thread::id id : mine.first_threads)
      EXPECT_EQ(id, reader_ids[static_cast<std::size_t>(r % 2)]);
  }
}

TEST(WatchWorkers, AWatchersFailureIsRethrownOnceAndTheWorkersGoOn) {
  WatchWorkers workers(2);
  std::uint64_t watched = 0;
  AlignedRank::Watcher target;
  target.mpi_calls = [&watched](std::span<const rocprof::format::MpiCallRow> rows) {
    for (const auto& row : rows) {
      if (row.begin_ns == 1500) throw std::runtime_error("string id 7 is outside the table");
      ++watched;
    }
  };
  std::vector<WatchWorkers::Target> targets;
  targets.push_back({std::move(target), {}});
  WatchWorkers::Relay relay = workers.relay(std::move(targets));
  for (std::uint64_t i = 0; i < 5000; ++i) {
    rocprof::format::MpiCallRow row{};
    row.begin_ns = i;
    relay.watcher.mpi_calls(std::span(&row, 1));
  }
  WatchWorkers::flush(*relay.feed);
  try {
    workers.wait();
    ADD_FAILURE() << "the watcher's failure was not told";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "string id 7 is outside the table");
  }
  EXPECT_EQ(watched, 1500U);  // the rows before it; none after
  // Told once; rows passed on afterwards are watched again.
  rocprof::format::MpiCallRow row{};
  row.begin_ns = 9000;
  relay.watcher.mpi_calls(std::span(&row, 1));
  WatchWorkers::flush(*relay.feed);
  EXPECT_NO_THROW(workers.wait());
  EXPECT_EQ(watched, 1501U);
}

}  // namespace
