// The ROCm SMI backend of device profiling sessions, against the simulated ROCm SMI
// (tests/sim/rocm_smi/): named by ROCPROF_MPI_ROCM_SMI_LIBRARY, as a user names another ROCm
// installation. Sessions read its two simulated GPUs, and the readings follow their load.
#include <gtest/gtest.h>
#include <rocprofiler/v2/rocprofiler.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "lib/device/counter_listing.hpp"

namespace {

class SimulatedRocmSmi : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* library =
        std::getenv("ROCPROF_MPI_ROCM_SMI_LIBRARY");  // NOLINT(concurrency-mt-unsafe)
    ASSERT_NE(library, nullptr)
        << "run with ROCPROF_MPI_ROCM_SMI_LIBRARY naming the simulated library";
    ASSERT_EQ(rocprofiler_initialize(), ROCPROFILER_STATUS_SUCCESS);
  }
  void TearDown() override { rocprofiler_finalize(); }
};

TEST_F(SimulatedRocmSmi, ReadingsFollowTheSimulatedLoad) {
  const char* names[] = {"GPU_UTIL",  "GPU_MEM_UTIL",    "GPU_SM_CLOCK", "GPU_MEM_CLOCK",
                         "GPU_POWER", "GPU_TEMPERATURE", "GPU_MEM_USED", "CPU_UTIL"};
  rocprofiler_session_id_t session{};
  ASSERT_EQ(rocprofiler_device_profiling_session_create(names, 8, &session, -1, 1),
            ROCPROFILER_STATUS_SUCCESS);
  ASSERT_EQ(rocprofiler_device_profiling_session_start(session), ROCPROFILER_STATUS_SUCCESS);
  std::vector<rocprofiler_device_profile_metric_t> data(8);
  setenv("SIM_ROCM_SMI_BUSY_1", "80", 1);  // NOLINT(concurrency-mt-unsafe)
  ASSERT_EQ(rocprofiler_device_profiling_session_poll(session, data.data()),
            ROCPROFILER_STATUS_SUCCESS);
  EXPECT_STREQ(data[0].metric_name, "GPU_UTIL");
  EXPECT_EQ(data[0].value.value, 80.0);
  EXPECT_EQ(data[1].value.value, 40.0);
  EXPECT_EQ(data[2].value.value, 1700.0);  // MHz, from the current level in Hz
  EXPECT_EQ(data[3].value.value, 1600.0);
  EXPECT_EQ(data[4].value.value, 340.0);  // W, from microwatts
  EXPECT_EQ(data[5].value.value, 56.0);   // C, from millidegrees
  EXPECT_EQ(data[6].value.value, 2.0 * (1 << 30));
  setenv("SIM_ROCM_SMI_BUSY_1", "0", 1);  // NOLINT(concurrency-mt-unsafe)
  ASSERT_EQ(rocprofiler_device_profiling_session_poll(session, data.data()),
            ROCPROFILER_STATUS_SUCCESS);
  EXPECT_EQ(data[0].value.value, 0.0);
  EXPECT_EQ(data[2].value.value, 500.0);
  EXPECT_EQ(data[4].value.value, 100.0);
  EXPECT_EQ(rocprofiler_device_profiling_session_destroy(session), ROCPROFILER_STATUS_SUCCESS);
}

TEST_F(SimulatedRocmSmi, AGpuPastTheSimulatedOnesIsAMissingAgent) {
  const char* names[] = {"GPU_UTIL"};
  rocprofiler_session_id_t session{};
  EXPECT_EQ(rocprofiler_device_profiling_session_create(names, 1, &session, -1, 2),
            ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND);
  // NVML's PCIe counters are not among ROCm SMI's.
  const char* pcie[] = {"GPU_PCIE_TX"};
  EXPECT_EQ(rocprofiler_device_profiling_session_create(pcie, 1, &session, -1, 0),
            ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND);
}

TEST(SimulatedRocmSmiListing, EachSimulatedGpuHasASection) {
  const std::string listing = rocprof::device::describe_counters();
  EXPECT_NE(listing.find("\nGPU 0 (Simulated AMD Instinct MI250X GCD 0) (gpu_index 0):\n"
                         "  GPU_UTIL "),
            std::string::npos)
      << listing;
  EXPECT_NE(listing.find("\nGPU 1 (Simulated AMD Instinct MI250X GCD 1)"), std::string::npos);
}

}  // namespace
