// Recorder settings and output names: every accepted spelling and every rejection.
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <thread>

#include <gtest/gtest.h>

#include "lib/recorder/helper_threads.hpp"
#include "lib/settings/config.hpp"
#include "lib/settings/identity.hpp"
#include "lib/settings/mpi_exclude.hpp"

namespace {

using namespace rocprof::recorder;
using namespace rocprof::settings;

TEST(RecorderConfig, Durations) {
  std::uint32_t ms = 0;
  EXPECT_TRUE(parse_duration_ms("250", ms));
  EXPECT_EQ(ms, 250U);
  EXPECT_TRUE(parse_duration_ms("250ms", ms));
  EXPECT_EQ(ms, 250U);
  EXPECT_TRUE(parse_duration_ms("2s", ms));
  EXPECT_EQ(ms, 2000U);
  for (const char* bad : {"", "0", "ms", "1h", "-5", "2 s", "3600001", "1.5s"})
    EXPECT_FALSE(parse_duration_ms(bad, ms)) << bad;
}

TEST(RecorderConfig, Sizes) {
  std::uint64_t bytes = 0;
  EXPECT_TRUE(parse_bytes("65536", bytes));
  EXPECT_EQ(bytes, 65536U);
  EXPECT_TRUE(parse_bytes("64K", bytes));
  EXPECT_EQ(bytes, 65536U);
  EXPECT_TRUE(parse_bytes("2M", bytes));
  EXPECT_EQ(bytes, 2U << 20);
  EXPECT_TRUE(parse_bytes("1GiB", bytes));
  EXPECT_EQ(bytes, 1U << 30);
  for (const char* bad : {"", "K", "12Q", "-1"}) EXPECT_FALSE(parse_bytes(bad, bytes)) << bad;
}

TEST(RecorderConfig, Domains) {
  Domains domains;
  std::string error;
  ASSERT_TRUE(parse_domains("roctx,mpi", domains, error));
  EXPECT_TRUE(domains.roctx);
  EXPECT_TRUE(domains.mpi);
  EXPECT_FALSE(domains.hip_api);
  EXPECT_FALSE(domains.counters);
  ASSERT_TRUE(parse_domains("all", domains, error));
  EXPECT_TRUE(domains.hsa_ops && domains.counters && domains.hip_api);
  EXPECT_FALSE(domains.cuda);  // loads CUPTI: only when named
  ASSERT_TRUE(parse_domains("cuda,all", domains, error));
  EXPECT_TRUE(domains.cuda && domains.roctx);
  ASSERT_TRUE(parse_domains("cuda", domains, error));
  EXPECT_TRUE(domains.cuda);
  EXPECT_FALSE(domains.roctx);
  EXPECT_FALSE(parse_domains("roctx,gpu", domains, error));
  EXPECT_NE(error.find("unknown domain 'gpu'"), std::string::npos);
  EXPECT_FALSE(parse_domains("", domains, error));
}

// The environment is changed on the test's one thread.
// NOLINTBEGIN(concurrency-mt-unsafe)
TEST(RecorderConfig, EnvironmentIsValidated) {
  setenv("ROCPROF_MPI_COMPRESSION", "deflate:6", 1);
  setenv("ROCPROF_MPI_FLUSH_INTERVAL", "300ms", 1);
  setenv("ROCPROF_MPI_BUFFER_SIZE", "256K", 1);
  Config config;
  std::string error;
  ASSERT_TRUE(read_config(config, error)) << error;
  EXPECT_EQ(config.compression.to_string(), "deflate:6");
  EXPECT_EQ(config.flush_interval_ms, 300U);
  EXPECT_EQ(config.buffer_bytes, 256U << 10);
  setenv("ROCPROF_MPI_BUFFER_SIZE", "2G", 1);
  EXPECT_FALSE(read_config(config, error));
  EXPECT_NE(error.find("ROCPROF_MPI_BUFFER_SIZE='2G'"), std::string::npos) << error;
  unsetenv("ROCPROF_MPI_BUFFER_SIZE");
  setenv("ROCPROF_MPI_OUTPUT_FILE", "a/b.h5", 1);
  EXPECT_FALSE(read_config(config, error));
  EXPECT_NE(error.find("without '/'"), std::string::npos) << error;
  unsetenv("ROCPROF_MPI_OUTPUT_FILE");
  unsetenv("ROCPROF_MPI_COMPRESSION");
  unsetenv("ROCPROF_MPI_FLUSH_INTERVAL");
  EXPECT_TRUE(config.helpers_on_all_cpus);  // the default
  setenv("ROCPROF_MPI_HELPER_CPUS", "rank", 1);
  ASSERT_TRUE(read_config(config, error)) << error;
  EXPECT_FALSE(config.helpers_on_all_cpus);
  setenv("ROCPROF_MPI_HELPER_CPUS", "spare", 1);
  EXPECT_FALSE(read_config(config, error));
  EXPECT_NE(error.find("ROCPROF_MPI_HELPER_CPUS='spare' must be all or rank"), std::string::npos)
      << error;
  unsetenv("ROCPROF_MPI_HELPER_CPUS");
  EXPECT_EQ(config.helper_nice, 0);  // the default: the application's priority
  setenv("ROCPROF_MPI_HELPER_NICE", "10", 1);
  ASSERT_TRUE(read_config(config, error)) << error;
  EXPECT_EQ(config.helper_nice, 10);
  for (const char* bad : {"20", "-1", "5x", ""}) {
    setenv("ROCPROF_MPI_HELPER_NICE", bad, 1);
    EXPECT_FALSE(read_config(config, error)) << bad;
    EXPECT_NE(error.find("must be a number from 0 to 19"), std::string::npos) << error;
  }
  unsetenv("ROCPROF_MPI_HELPER_NICE");
  EXPECT_EQ(config.timestamps, Timestamps::kAuto);  // the default
  setenv("ROCPROF_MPI_TIMESTAMPS", "clock_gettime", 1);
  ASSERT_TRUE(read_config(config, error)) << error;
  EXPECT_EQ(config.timestamps, Timestamps::kClockGettime);
  setenv("ROCPROF_MPI_TIMESTAMPS", "rdtsc", 1);
  EXPECT_FALSE(read_config(config, error));
  EXPECT_NE(error.find("ROCPROF_MPI_TIMESTAMPS='rdtsc' must be auto or clock_gettime"),
            std::string::npos)
      << error;
  unsetenv("ROCPROF_MPI_TIMESTAMPS");
}

// A rank bound to one CPU: its helper threads leave that CPU for all the process may use,
// unless asked to stay; their priority is the process's, or lower by the niceness asked.
TEST(RecorderHelperThreads, LeaveTheRanksCpuUnlessAskedToStay) {
  cpu_set_t original{};
  ASSERT_EQ(sched_getaffinity(0, sizeof original, &original), 0);
  if (CPU_COUNT(&original) < 2) GTEST_SKIP() << "needs a process allowed on 2 CPUs";
  int first = 0;
  while (!CPU_ISSET(first, &original)) ++first;
  cpu_set_t bound{};
  CPU_ZERO(&bound);
  CPU_SET(first, &bound);
  ASSERT_EQ(sched_setaffinity(0, sizeof bound, &bound), 0);  // this thread: the "rank"
  errno = 0;
  const int own_nice = getpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)));
  for (const bool on_all : {true, false}) {
    for (const int lower : {0, 7}) {
      cpu_set_t helper{};
      int nice_value = 0;
      std::thread([&] {
        rocprof::recorder::become_helper_thread(on_all, lower);
        sched_getaffinity(0, sizeof helper, &helper);
        errno = 0;
        nice_value = getpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)));
      }).join();
      EXPECT_TRUE(CPU_EQUAL(&helper, on_all ? &original : &bound))
          << "on_all " << on_all << ": helper on " << CPU_COUNT(&helper) << " CPUs";
      EXPECT_EQ(nice_value, std::min(own_nice + lower, 19));
    }
  }
  sched_setaffinity(0, sizeof original, &original);
}

TEST(RecorderIdentity, RankPrecedenceFollowsTheLaunchers) {
  // Under mpirun inside an allocation every process sees SLURM_PROCID=0: it comes last.
  setenv("SLURM_PROCID", "0", 1);
  setenv("PMIX_RANK", "6", 1);
  EXPECT_EQ(identity_from_environment().rank, 6);
  setenv("OMPI_COMM_WORLD_RANK", "3", 1);
  EXPECT_EQ(identity_from_environment().rank, 3);
  unsetenv("OMPI_COMM_WORLD_RANK");
  unsetenv("PMIX_RANK");
  EXPECT_EQ(identity_from_environment().rank, 0);
  unsetenv("SLURM_PROCID");
  EXPECT_EQ(identity_from_environment().rank, -1);
}
// NOLINTEND(concurrency-mt-unsafe)

TEST(RecorderIdentity, Placeholders) {
  Identity identity;
  identity.rank = 12;
  identity.size = 64;
  identity.pid = 4321;
  identity.hostname = "nid001";
  identity.job_id = "98765";
  std::string out;
  std::string error;
  ASSERT_TRUE(
      expand_placeholders("run-%job%/%hostname%-%rank%-of-%size%.%pid%.h5", identity, out, error));
  EXPECT_EQ(out, "run-98765/nid001-12-of-64.4321.h5");
  identity.rank = -1;
  identity.job_id.clear();
  ASSERT_TRUE(expand_placeholders("%job%/%rank%.h5", identity, out, error));
  EXPECT_EQ(out, "pid4321/pid4321.h5");
  EXPECT_FALSE(expand_placeholders("%rnak%.h5", identity, out, error));
  EXPECT_NE(error.find("unknown placeholder '%rnak%'"), std::string::npos);
  EXPECT_FALSE(expand_placeholders("out-%rank", identity, out, error));
  EXPECT_NE(error.find("unterminated"), std::string::npos);
}

TEST(RecorderIdentity, PlaceholderValuesAddNoPathComponents) {
  Identity identity;
  identity.rank = 3;
  std::string out = "unchanged";
  std::string error;
  const auto expand = [&](const char* value, const char* pattern) {
    if (value != nullptr)
      setenv("ROCPROF_TEST_PART", value, 1);  // NOLINT(concurrency-mt-unsafe)
    else
      unsetenv("ROCPROF_TEST_PART");  // NOLINT(concurrency-mt-unsafe)
    error.clear();
    return expand_placeholders(pattern, identity, out, error);
  };
  EXPECT_FALSE(expand("../../escaped", "%env{ROCPROF_TEST_PART}%.h5"));
  EXPECT_NE(error.find("has a '/'"), std::string::npos) << error;
  EXPECT_FALSE(expand("a/b", "od/%env{ROCPROF_TEST_PART}%"));
  EXPECT_FALSE(expand("..", "od/%env{ROCPROF_TEST_PART}%/x"));
  EXPECT_NE(error.find("'..'"), std::string::npos) << error;
  EXPECT_FALSE(expand(".", "%env{ROCPROF_TEST_PART}%/%rank%.h5"));
  EXPECT_FALSE(expand(nullptr, "%env{ROCPROF_TEST_PART}%/%rank%.h5"));  // would be /3.h5
  EXPECT_EQ(out, "unchanged");
  // Values inside a component, and dots the pattern itself has, are fine.
  ASSERT_TRUE(expand("..", "run%env{ROCPROF_TEST_PART}%x/%rank%.h5")) << error;
  EXPECT_EQ(out, "run..x/3.h5");
  ASSERT_TRUE(expand("exp1", "../traces/%env{ROCPROF_TEST_PART}%")) << error;
  EXPECT_EQ(out, "../traces/exp1");
  ASSERT_TRUE(expand("", "/abs/run%env{ROCPROF_TEST_PART}%")) << error;
  EXPECT_EQ(out, "/abs/run");
  // A host name or job id is checked like any value (a UTS namespace may name a host '..').
  for (const char* host : {"../../etc", "a/b", ".."}) {
    identity.hostname = host;
    out = "unchanged";
    EXPECT_FALSE(expand(nullptr, "traces/%hostname%/%rank%.h5")) << host;
    EXPECT_EQ(out, "unchanged");
  }
  identity.hostname = "nid001";
  identity.job_id = "12/34";
  EXPECT_FALSE(expand(nullptr, "traces/%job%"));
  EXPECT_NE(error.find("has a '/'"), std::string::npos) << error;
}

}  // namespace

namespace {

TEST(MpiExclude, NamesAndPatternsSeparatedByCommas) {
  using rocprof::settings::mpi_pattern_matches;
  using rocprof::settings::parse_mpi_exclude;
  std::vector<std::string> patterns;
  std::string error;
  ASSERT_TRUE(parse_mpi_exclude("MPI_Comm_rank, MPI_Test*,MPI_Wait[as]ll", patterns, error));
  EXPECT_EQ(patterns, (std::vector<std::string>{"MPI_Comm_rank", "MPI_Test*", "MPI_Wait[as]ll"}));
  EXPECT_TRUE(mpi_pattern_matches("MPI_Test*", "MPI_Testsome"));
  EXPECT_TRUE(mpi_pattern_matches("MPI_Wait[as]ll", "MPI_Waitall"));
  EXPECT_FALSE(mpi_pattern_matches("MPI_Wait[as]ll", "MPI_Wait"));
  EXPECT_FALSE(mpi_pattern_matches("MPI_Comm_rank", "MPI_Comm_ranks"));
  for (const char* bad : {"", "MPI_Send,", ",MPI_Send", "MPI_Send,,MPI_Recv"}) {
    EXPECT_FALSE(parse_mpi_exclude(bad, patterns, error)) << bad;
    EXPECT_NE(error.find("empty item"), std::string::npos) << error;
  }
  for (const char* bad : {"MPI Send", "MPI_Send;rm", "MPI_Send/x"}) {
    EXPECT_FALSE(parse_mpi_exclude(bad, patterns, error)) << bad;
    EXPECT_NE(error.find("is not an MPI function name or pattern"), std::string::npos) << error;
  }
}

TEST(MpiExclude, FilterFilesHaveOnePerLineAndComments) {
  using rocprof::settings::read_mpi_exclude_file;
  char path[] = "/tmp/mpi_exclude_XXXXXX";
  const int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  const std::string text = "# polling\nMPI_Test*   # all of them\r\n\n  MPI_Iprobe\n";
  ASSERT_EQ(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  ::close(fd);
  std::string list;
  std::string error;
  ASSERT_TRUE(read_mpi_exclude_file(path, list, error)) << error;
  EXPECT_EQ(list, "MPI_Test*,MPI_Iprobe");
  ::unlink(path);
  EXPECT_FALSE(read_mpi_exclude_file(path, list, error));
  EXPECT_NE(error.find("cannot read the filter file"), std::string::npos);
}

}  // namespace
