// Device profiling sessions (rocprofiler/v2/rocprofiler.h): every misuse returns its status
// and nothing crashes, and the host counters sample this machine for real.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <rocprofiler/v2/rocprofiler.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

namespace {

class DeviceSessions : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(rocprofiler_initialize(), ROCPROFILER_STATUS_SUCCESS); }
  void TearDown() override { rocprofiler_finalize(); }

  static rocprofiler_session_id_t make(std::vector<const char*> names, int cpu = -1) {
    rocprofiler_session_id_t id{};
    EXPECT_EQ(rocprofiler_device_profiling_session_create(names.data(), names.size(), &id, cpu, 0),
              ROCPROFILER_STATUS_SUCCESS);
    return id;
  }
};

TEST(DeviceSessionsLifecycle, InitializeAndFinalizeAsRocprofilerDoes) {
  EXPECT_EQ(rocprofiler_version_major(), 9U);
  EXPECT_EQ(rocprofiler_finalize(), ROCPROFILER_STATUS_ERROR_NOT_INITIALIZED);
  const char* names[] = {"CPU_UTIL"};
  rocprofiler_session_id_t id{};
  EXPECT_EQ(rocprofiler_device_profiling_session_create(names, 1, &id, -1, 0),
            ROCPROFILER_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(rocprofiler_device_profiling_session_start(id),
            ROCPROFILER_STATUS_ERROR_NOT_INITIALIZED);
  ASSERT_EQ(rocprofiler_initialize(), ROCPROFILER_STATUS_SUCCESS);
  EXPECT_EQ(rocprofiler_initialize(), ROCPROFILER_STATUS_ERROR_ALREADY_INITIALIZED);
  ASSERT_EQ(rocprofiler_device_profiling_session_create(names, 1, &id, -1, 0),
            ROCPROFILER_STATUS_SUCCESS);
  // Finalize takes the sessions still open with it.
  EXPECT_EQ(rocprofiler_finalize(), ROCPROFILER_STATUS_SUCCESS);
  EXPECT_EQ(rocprofiler_finalize(), ROCPROFILER_STATUS_ERROR_NOT_INITIALIZED);
  ASSERT_EQ(rocprofiler_initialize(), ROCPROFILER_STATUS_SUCCESS);
  EXPECT_EQ(rocprofiler_device_profiling_session_start(id),
            ROCPROFILER_STATUS_ERROR_SESSION_NOT_FOUND);
  EXPECT_EQ(rocprofiler_finalize(), ROCPROFILER_STATUS_SUCCESS);
  EXPECT_STRNE(rocprofiler_error_str(ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND), "");
  EXPECT_NE(rocprofiler_error_str(static_cast<rocprofiler_status_t>(-99)), nullptr);
}

TEST_F(DeviceSessions, BadInputGetsItsStatus) {
  rocprofiler_session_id_t id{};
  const char* unknown[] = {"CPU_UTIL", "NO_SUCH_COUNTER"};
  EXPECT_EQ(rocprofiler_device_profiling_session_create(unknown, 2, &id, -1, 0),
            ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND);
  const char* null_name[] = {nullptr};
  EXPECT_EQ(rocprofiler_device_profiling_session_create(null_name, 1, &id, -1, 0),
            ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND);
  const char* known[] = {"CPU_UTIL"};
  EXPECT_EQ(rocprofiler_device_profiling_session_create(known, 0, &id, -1, 0),
            ROCPROFILER_STATUS_ERROR);
  EXPECT_EQ(rocprofiler_device_profiling_session_create(nullptr, 1, &id, -1, 0),
            ROCPROFILER_STATUS_ERROR);
  EXPECT_EQ(rocprofiler_device_profiling_session_create(known, 1, nullptr, -1, 0),
            ROCPROFILER_STATUS_ERROR);
  EXPECT_EQ(rocprofiler_device_profiling_session_create(known, 1, &id, 1 << 20, 0),
            ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND);
  EXPECT_EQ(rocprofiler_device_profiling_session_create(known, 1, &id, -2, 0),
            ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND);

  // A GPU counter: where no NVIDIA driver (or no such GPU) is, the GPU is the missing agent.
  const char* gpu_names[] = {"CPU_UTIL", "GPU_UTIL"};
  const bool nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_NOLOAD) != nullptr ||
                    dlopen("libnvidia-ml.so.1", RTLD_NOW) != nullptr;
  EXPECT_EQ(rocprofiler_device_profiling_session_create(gpu_names, 2, &id, -1, 1 << 20),
            ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND);
  if (!nvml) {
    EXPECT_EQ(rocprofiler_device_profiling_session_create(gpu_names, 2, &id, -1, 0),
              ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND);
  }

  const rocprofiler_session_id_t session = make({"CPU_UTIL"});
  rocprofiler_device_profile_metric_t metric{};
  EXPECT_EQ(rocprofiler_device_profiling_session_poll(session, &metric),
            ROCPROFILER_STATUS_ERROR_SESSION_NOT_ACTIVE);  // before start
  EXPECT_EQ(rocprofiler_device_profiling_session_stop(session),
            ROCPROFILER_STATUS_ERROR_SESSION_NOT_ACTIVE);
  ASSERT_EQ(rocprofiler_device_profiling_session_start(session), ROCPROFILER_STATUS_SUCCESS);
  EXPECT_EQ(rocprofiler_device_profiling_session_start(session),
            ROCPROFILER_STATUS_ERROR_HAS_ACTIVE_SESSION);
  EXPECT_EQ(rocprofiler_device_profiling_session_poll(session, nullptr), ROCPROFILER_STATUS_ERROR);
  EXPECT_EQ(rocprofiler_device_profiling_session_stop(session), ROCPROFILER_STATUS_SUCCESS);
  EXPECT_EQ(rocprofiler_device_profiling_session_poll(session, &metric),
            ROCPROFILER_STATUS_ERROR_SESSION_NOT_ACTIVE);  // after stop
  EXPECT_EQ(rocprofiler_device_profiling_session_destroy(session), ROCPROFILER_STATUS_SUCCESS);
  EXPECT_EQ(rocprofiler_device_profiling_session_destroy(session),
            ROCPROFILER_STATUS_ERROR_SESSION_NOT_FOUND);  // twice
  EXPECT_EQ(rocprofiler_device_profiling_session_poll(session, &metric),
            ROCPROFILER_STATUS_ERROR_SESSION_NOT_FOUND);
  EXPECT_EQ(rocprofiler_device_profiling_session_destroy({987654}),
            ROCPROFILER_STATUS_ERROR_SESSION_NOT_FOUND);
}

// CPU time this process has used, in seconds.
double process_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

// A quiet window, then busy threads on every CPU of the process: CPU_UTIL over them rises, and
// is at least the share of the CPUs this process itself used (the machine's use includes it);
// the memory counters read this machine.
TEST_F(DeviceSessions, HostCountersFollowTheMachine) {
  const rocprofiler_session_id_t session =
      make({"CPU_UTIL", "HOST_MEM_USED", "HOST_MEM_TOTAL", "PROCESS_RSS"});
  ASSERT_EQ(rocprofiler_device_profiling_session_start(session), ROCPROFILER_STATUS_SUCCESS);
  std::vector<rocprofiler_device_profile_metric_t> data(4);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_EQ(rocprofiler_device_profiling_session_poll(session, data.data()),
            ROCPROFILER_STATUS_SUCCESS);
  const double quiet = data[0].value.value;

  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
  const int cpus = CPU_COUNT(&allowed);
  std::atomic<bool> stop{false};
  std::vector<std::thread> burners;
  burners.reserve(static_cast<std::size_t>(cpus));
  const double cpu_before = process_cpu_seconds();
  const auto wall_before = std::chrono::steady_clock::now();
  for (int i = 0; i < cpus; ++i)
    burners.emplace_back([&stop] {
      volatile std::uint64_t spin = 0;
      while (!stop.load(std::memory_order_relaxed)) spin = spin + 1;
    });
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  ASSERT_EQ(rocprofiler_device_profiling_session_poll(session, data.data()),
            ROCPROFILER_STATUS_SUCCESS);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_before).count();
  const double own_share = 100.0 * (process_cpu_seconds() - cpu_before) / (wall * cpus);
  stop = true;
  for (auto& burner : burners) burner.join();
  const double busy = data[0].value.value;
  EXPECT_STREQ(data[0].metric_name, "CPU_UTIL");
  EXPECT_STREQ(data[3].metric_name, "PROCESS_RSS");
  EXPECT_GE(busy, own_share - 10.0) << "quiet " << quiet;
  EXPECT_GT(own_share, 20.0) << "the burners hardly ran";
  EXPECT_LE(busy, 100.0);
  // A machine other work keeps busy shows no rise: only then is none asked for.
  if (quiet < 90.0) {
    EXPECT_GT(busy, quiet + 10.0);
  }
  EXPECT_GT(data[1].value.value, 0.0);
  EXPECT_LT(data[1].value.value, data[2].value.value);
  EXPECT_EQ(data[2].value.value, static_cast<double>(sysconf(_SC_PHYS_PAGES)) *
                                     static_cast<double>(sysconf(_SC_PAGESIZE)))
      << "MemTotal is the machine's memory";
  EXPECT_GT(data[3].value.value, 1 << 20);
}

}  // namespace
