// The share of the rank-file check a parallel merge starts before MPI: where the launcher's
// environment places the process, which files a share checks, and what happens to a share
// checked for another place than MPI's. A group of one (no MPI launch) stands for MPI's answer.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "merge/input/rank_set.hpp"
#include "merge/parallel/early_check.hpp"
#include "merge/parallel/merge_group.hpp"
#include "merge/parallel/shared_check.hpp"
#include "tests/tools/synthetic_job.hpp"
#include "tests/tools/test_dir.hpp"

namespace {

namespace fs = std::filesystem;
using namespace rocprof::merge;

constexpr const char* kLaunchVariables[] = {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
                                            "PMIX_RANK", "SLURM_STEP_NUM_TASKS", "PMI_RANK"};

// Sets launcher variables for one test and removes them after (a MergeGroup made while they
// are set would start MPI).
class LaunchEnvironment : public ::testing::Test {
 protected:
  void SetUp() override { clear(); }
  void TearDown() override { clear(); }
  static void clear() {
    for (const char* name : kLaunchVariables) unsetenv(name);  // NOLINT(concurrency-mt-unsafe)
  }
  static void set(const char* name, const char* value) {
    setenv(name, value, 1);  // NOLINT(concurrency-mt-unsafe): before any thread starts
  }
};

TEST_F(LaunchEnvironment, MpirunsAndSrunsVariablesPlaceTheProcess) {
  EXPECT_FALSE(launch_place_from_environment().has_value());
  set("OMPI_COMM_WORLD_RANK", "2");
  set("OMPI_COMM_WORLD_SIZE", "3");
  auto place = launch_place_from_environment();
  ASSERT_TRUE(place.has_value());
  EXPECT_EQ(place->index, 2U);
  EXPECT_EQ(place->processes, 3U);
  clear();
  set("PMIX_RANK", "5");                                      // srun's direct launch
  EXPECT_FALSE(launch_place_from_environment().has_value());  // no size: no guess
  set("SLURM_STEP_NUM_TASKS", "16");
  place = launch_place_from_environment();
  ASSERT_TRUE(place.has_value());
  EXPECT_EQ(place->index, 5U);
  EXPECT_EQ(place->processes, 16U);
  // mpirun's variables come first (under mpirun inside an allocation, Slurm's describe the
  // allocation's step, not this job).
  set("OMPI_COMM_WORLD_RANK", "1");
  set("OMPI_COMM_WORLD_SIZE", "2");
  EXPECT_EQ(launch_place_from_environment()->index, 1U);
}

TEST_F(LaunchEnvironment, NonsenseIsNoGuess) {
  for (const auto& [rank, size] : {std::pair{"3", "3"}, std::pair{"x", "4"}, std::pair{"1", ""},
                                   std::pair{"-1", "4"}, std::pair{"1", "4 "}}) {
    set("OMPI_COMM_WORLD_RANK", rank);
    set("OMPI_COMM_WORLD_SIZE", size);
    EXPECT_FALSE(launch_place_from_environment().has_value()) << rank << " of " << size;
  }
}

class EarlyCheckTest : public LaunchEnvironment {
 protected:
  void SetUp() override {
    LaunchEnvironment::SetUp();
    dir_ = rocprof::test::fresh_test_dir("early_check");
    job_.directory = (dir_ / "job").string();
    job_.ranks = 5;
    job_.events_per_rank = 1000;
    rocprof::test::write_synthetic_job(job_);
  }
  void TearDown() override {
    fs::remove_all(dir_);
    LaunchEnvironment::TearDown();
  }
  fs::path dir_;
  rocprof::test::SyntheticJob job_;
};

TEST_F(EarlyCheckTest, AShareChecksItsBlockOfFilesInRankOrder) {
  for (const auto& [index, expected] :
       {std::pair{std::size_t{0}, std::vector<std::int32_t>{0, 1, 2}},
        std::pair{std::size_t{1}, std::vector<std::int32_t>{3, 4}}}) {
    std::vector<std::int32_t> checked;
    const CheckedShare share =
        check_share({job_.directory}, index, 2,
                    [&checked](std::int32_t rank, const rocprof::format::RankFileReader&) {
                      checked.push_back(rank);
                    });
    EXPECT_EQ(checked, expected);
    ASSERT_EQ(share.files.size(), 5U);
    std::size_t readers = 0;
    for (const RankSet::CheckedFile& file : share.files) readers += file.reader ? 1 : 0;
    EXPECT_EQ(readers, expected.size());  // the others' files are left to them
    EXPECT_FALSE(share.found.empty());
    EXPECT_TRUE(share.list_problem.empty());
  }
  // Stopped: nothing more is checked.
  const std::atomic<bool> stop{true};
  std::size_t checked = 0;
  const CheckedShare stopped = check_share(
      {job_.directory}, 0, 1,
      [&checked](std::int32_t, const rocprof::format::RankFileReader&) { ++checked; }, {}, &stop);
  EXPECT_EQ(checked, 0U);
  // An input that is not there: the share says why, for the processes to agree on.
  const CheckedShare unlisted = check_share({(dir_ / "nothing").string()}, 0, 2);
  EXPECT_NE(unlisted.list_problem.find("nothing"), std::string::npos) << unlisted.list_problem;
}

TEST_F(EarlyCheckTest, AShareCheckedWhereMpiPlacedTheProcessIsTheSerialSet) {
  const MergeGroup group(nullptr, nullptr);  // no MPI launch: process 0 of 1
  std::vector<std::int32_t> checked;
  int refused = 0;
  EarlyCheck early(
      {job_.directory}, LaunchPlace{0, 1},
      [&checked](std::int32_t rank, const rocprof::format::RankFileReader&) {
        checked.push_back(rank);
      },
      [&refused] { ++refused; });
  std::optional<CheckedShare> share = early.take(group);
  ASSERT_TRUE(share.has_value());
  const RankSet set = join_shares(group, std::move(*share), {});
  const RankSet serial = RankSet::open({job_.directory}, {});
  ASSERT_EQ(set.ranks().size(), serial.ranks().size());
  for (std::size_t i = 0; i < set.ranks().size(); ++i) {
    EXPECT_EQ(set.ranks()[i].rank, serial.ranks()[i].rank);
    EXPECT_EQ(set.ranks()[i].path, serial.ranks()[i].path);
  }
  EXPECT_EQ(set.job_id(), serial.job_id());
  EXPECT_EQ(checked, (std::vector<std::int32_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(refused, 0);
}

TEST_F(EarlyCheckTest, AShareCheckedForAnotherPlaceIsDroppedAfterItsWorkEnds) {
  const MergeGroup group(nullptr, nullptr);
  int refused = 0;
  {
    EarlyCheck early({job_.directory}, LaunchPlace{1, 2}, {}, [&refused] { ++refused; });
    EXPECT_FALSE(early.take(group).has_value());  // the launcher said 1 of 2; MPI 0 of 1
    EXPECT_EQ(refused, 1);
  }
  EXPECT_EQ(refused, 1);  // once
  // Not taken (the merge stopped for another reason): dropped as it goes.
  {
    const EarlyCheck early({job_.directory}, LaunchPlace{0, 2}, {}, [&refused] { ++refused; });
  }
  EXPECT_EQ(refused, 2);
  // A share joined where it was not checked is a bug, not a set.
  CheckedShare elsewhere = check_share({job_.directory}, 1, 2);
  EXPECT_THROW(join_shares(group, std::move(elsewhere), {}), std::logic_error);
}

}  // namespace
