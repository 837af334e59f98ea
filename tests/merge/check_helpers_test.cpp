// Rank files checked by check helpers (rocprof-merge itself, run as one) find what the check
// in the merge's own process finds: the same ranks, the same rows read back (through the
// helpers' layouts, without opening the files again), the same problems and errors; and a
// helper that cannot start or stops early costs nothing but time.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "lib/format/rank_file_reader.hpp"
#include "merge/input/check_helpers.hpp"
#include "merge/input/rank_set.hpp"
#include "merge/parallel/shared_check.hpp"
#include "tests/tools/synthetic_job.hpp"

namespace rocprof::merge {
namespace {

namespace fs = std::filesystem;

class CheckHelpersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("check_helpers_test." + std::to_string(::getpid()));
    job_.ranks = 48;
    job_.events_per_rank = 2000;
    job_.directory = dir_.string();
    test::write_synthetic_job(job_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Three kinds of bad file among the good ones.
  void spoil() {
    std::ofstream(dir_ / "5.h5", std::ios::trunc).close();                  // empty
    std::ofstream(dir_ / "17.h5", std::ios::trunc) << "not a rank file\n";  // foreign
    fs::resize_file(dir_ / "30.h5", fs::file_size(dir_ / "30.h5") / 3);     // truncated
  }

  static CheckHelperSetting helpers(std::size_t count) { return {ROCPROF_MERGE_EXECUTABLE, count}; }

  RankSet open(const CheckHelperSetting& setting, bool skip_bad = false) const {
    RankSetOptions options;
    options.skip_bad = skip_bad;
    options.allow_missing = skip_bad;
    options.check_helpers = setting;
    return RankSet::open({dir_.string()}, options);
  }

  // Every rank's identity and rows, as read through its reader.
  static void expect_same(const RankSet& a, const RankSet& b) {
    ASSERT_EQ(a.ranks().size(), b.ranks().size());
    EXPECT_EQ(a.skipped(), b.skipped());
    for (std::size_t i = 0; i < a.ranks().size(); ++i) {
      const format::RankFileReader& x = *a.ranks()[i].reader;
      const format::RankFileReader& y = *b.ranks()[i].reader;
      EXPECT_EQ(a.ranks()[i].rank, b.ranks()[i].rank);
      EXPECT_EQ(x.path(), y.path());
      EXPECT_EQ(x.metadata().hostname, y.metadata().hostname);
      EXPECT_EQ(x.string_count(), y.string_count());
      EXPECT_EQ(x.clock_samples().size(), y.clock_samples().size());
      const auto mpi_x = x.read_all<format::MpiCallRow>();
      const auto mpi_y = y.read_all<format::MpiCallRow>();
      ASSERT_EQ(mpi_x.size(), mpi_y.size());
      for (std::size_t r = 0; r < mpi_x.size(); ++r) {
        const format::MpiCallRow& p = mpi_x[r];
        const format::MpiCallRow& q = mpi_y[r];
        ASSERT_EQ(std::tie(p.begin_ns, p.end_ns, p.external_id, p.communicator, p.request,
                           p.bytes_sent, p.bytes_received, p.thread_id, p.function, p.peer, p.tag),
                  std::tie(q.begin_ns, q.end_ns, q.external_id, q.communicator, q.request,
                           q.bytes_sent, q.bytes_received, q.thread_id, q.function, q.peer, q.tag))
            << x.path() << " row " << r;
      }
      const auto markers_x = x.read_all<format::MarkerRow>();
      const auto markers_y = y.read_all<format::MarkerRow>();
      ASSERT_EQ(markers_x.size(), markers_y.size());
      for (std::size_t r = 0; r < markers_x.size(); ++r) {
        const format::MarkerRow& p = markers_x[r];
        const format::MarkerRow& q = markers_y[r];
        ASSERT_EQ(std::tie(p.timestamp_ns, p.id, p.thread_id, p.level, p.message, p.op),
                  std::tie(q.timestamp_ns, q.id, q.thread_id, q.level, q.message, q.op))
            << x.path() << " row " << r;
      }
    }
  }

  fs::path dir_;
  test::SyntheticJob job_;
};

TEST_F(CheckHelpersTest, HelpersFindWhatTheMergeProcessFinds) {
  const RankSet here = open({});
  {
    const std::vector<std::string> paths = RankSet::list({dir_.string()});
    CheckHelpers started(helpers(2), paths);
    EXPECT_EQ(started.running(), 2U);
    for (std::size_t i = 0; i < paths.size(); ++i) {
      const RankSet::CheckedFile file = started.take(i);
      ASSERT_TRUE(file.reader) << file.problem;
      // Every file is a helper's, not opened here: its tables are read from the helper's
      // layout (HDF5 may crash on a damaged file, and only a helper may crash).
      EXPECT_FALSE(file.reader->open_in_hdf5()) << paths[i];
      EXPECT_TRUE(file.reader->reads_without_hdf5()) << paths[i];
    }
  }
  expect_same(here, open(helpers(3)));
}

TEST_F(CheckHelpersTest, BadFilesGetTheSameProblemsAndErrors) {
  spoil();
  expect_same(open({}, true), open(helpers(3), true));
  std::string without;
  std::string with;
  try {
    open({});
  } catch (const InputError& error) {
    without = error.what();
  }
  try {
    open(helpers(3));
  } catch (const InputError& error) {
    with = error.what();
  }
  // The first bad file in the order files are listed (by name).
  EXPECT_NE(without.find("17.h5: not an HDF5 file"), std::string::npos) << without;
  EXPECT_EQ(without, with);
}

TEST_F(CheckHelpersTest, HelpersThatCannotStartOrStopEarlyLeaveTheWorkHere) {
  const RankSet here = open({});
  // No such program; one that ends at once, saying nothing; one that says something else,
  // without end.
  for (const std::string program : {"/nonexistent/rocprof-merge", "/bin/true", "/usr/bin/yes"}) {
    SCOPED_TRACE(program);
    expect_same(here, open({program, 3}));
  }
}

// A program that greets as a helper and then lies: it runs the real helper and passes its
// findings on with the places of the first two swapped (each would then be taken for the
// other file's), or with the second cut short. Its files are checked here: nothing it sent
// is taken for another file's check.
TEST_F(CheckHelpersTest, AHelperThatMisnumbersOrCutsItsFindingsIsNotBelieved) {
  // Spoiled files 17.h5 and 5.h5 go to helpers: with a swap believed, a good file would be
  // skipped for a spoiled one's problem.
  spoil();
  const RankSet here = open({}, true);
  for (const std::string mode : {"swap", "cut"}) {
    SCOPED_TRACE(mode);
    const fs::path relay = dir_ / ("relay_" + mode);
    std::ofstream(relay) << "#!/bin/sh\nexec /usr/bin/python3 " LYING_CHECK_HELPER " "
                         << ROCPROF_MERGE_EXECUTABLE << ' ' << mode << ' ' << relay.string()
                         << " \"$@\"\n";
    fs::permissions(relay, fs::perms::owner_all);
    expect_same(here, open({relay.string(), 3}, true));
    // The relays did run and pass findings on (the fallback was not for a failed start).
    std::ifstream sent(relay.string() + ".sent");
    std::size_t findings = 0;
    sent >> findings;
    EXPECT_GT(findings, 2U) << relay;
  }
}

// A helper that greets and then never sends a finding (HDF5 looping on a damaged file) is
// stopped at the file timeout: that file is reported, and a new helper takes the next ones.
TEST_F(CheckHelpersTest, AHelperStuckOnAFileIsStoppedAndTheFileReported) {
  const fs::path stuck = dir_ / "stuck_helper";
  std::ofstream(stuck) << "#!/bin/sh\ncat >/dev/null\nprintf 'rocprof-merge check helper 1\\n'\n"
                          "exec sleep 600\n";
  fs::permissions(stuck, fs::perms::owner_all);
  const std::vector<std::string> paths = {(dir_ / "0.h5").string(), (dir_ / "1.h5").string()};
  CheckHelpers checking({stuck.string(), 1, std::chrono::milliseconds(300)}, paths);
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const RankSet::CheckedFile file = checking.take(i);
    EXPECT_FALSE(file.reader);
    EXPECT_EQ(file.problem, paths[i] +
                                ": damaged: HDF5 did not finish reading it in 0.3 s (its check "
                                "helper process was stopped)");
  }
}

TEST_F(CheckHelpersTest, AParallelMergesShareIsCheckedWithHelpersToo) {
  const CheckedShare alone = check_share({dir_.string()}, 1, 2);
  const CheckedShare helped = check_share({dir_.string()}, 1, 2, {}, {}, nullptr, helpers(2));
  EXPECT_EQ(alone.found, helped.found);  // what the other processes are told: the same bytes
  ASSERT_EQ(alone.files.size(), helped.files.size());
  for (std::size_t i = 0; i < alone.files.size(); ++i)
    EXPECT_EQ(alone.files[i].reader != nullptr, helped.files[i].reader != nullptr);
}

}  // namespace
}  // namespace rocprof::merge
