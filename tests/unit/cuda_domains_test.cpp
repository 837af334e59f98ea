// The CUDA domains of the roctracer API on a machine without a GPU: op names and codes come
// from CUPTI (no driver needed), and tracing them fails with a clear error, not a crash.
#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>
#include <dlfcn.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <string>

#include <gtest/gtest.h>
#include <rocprof-mpi/cuda_domains.h>
#include <roctracer/roctracer.h>

namespace {

// The roctracer functions take activity_domain_t; the CUDA domains are numbered past it.
constexpr activity_domain_t domain(int id) { return static_cast<activity_domain_t>(id); }

void ignore_call(uint32_t, uint32_t, const void*, void*) {}

bool driver_present() { return dlopen("libcuda.so.1", RTLD_LAZY) != nullptr; }

TEST(CudaDomains, RuntimeApiNamesMatchCuptiHeaderWithoutVersion) {
  // Independent source: the CUPTI_RUNTIME_TRACE_CBID_<name>_v<n> = <id> lines of the header.
  std::ifstream header(CUPTI_RUNTIME_CBID_PATH);
  ASSERT_TRUE(header) << CUPTI_RUNTIME_CBID_PATH;
  const std::regex line(R"(^\s*CUPTI_RUNTIME_TRACE_CBID_(\w+?)(_v\d+)?\s*=\s*(\d+),)");
  std::string text;
  int checked = 0;
  while (std::getline(header, text)) {
    std::smatch match;
    if (!std::regex_search(text, match, line)) continue;
    const std::string name = match[1];
    const auto id = static_cast<uint32_t>(std::stoul(match[3]));
    if (name == "INVALID" || name == "SIZE" || name == "FORCE_INT") continue;
    const char* found = roctracer_op_string(ROCPROF_MPI_DOMAIN_CUDA_RUNTIME_API, id, 0);
    ASSERT_NE(found, nullptr) << name << " (" << id << "): " << roctracer_error_string();
    EXPECT_EQ(std::string(found), name) << id;
    ++checked;
  }
  EXPECT_GT(checked, 400);
}

TEST(CudaDomains, NamesAndCodesRoundTrip) {
  EXPECT_STREQ(roctracer_op_string(ROCPROF_MPI_DOMAIN_CUDA_RUNTIME_API,
                                   CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, 0),
               "cudaMemcpyAsync");
  EXPECT_STREQ(roctracer_op_string(ROCPROF_MPI_DOMAIN_CUDA_DRIVER_API,
                                   CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 0),
               "cuLaunchKernel");
  EXPECT_STREQ(roctracer_op_string(ROCPROF_MPI_DOMAIN_CUDA_OPS, ROCPROF_MPI_CUDA_OP_KERNEL, 0),
               "KERNEL");
  EXPECT_STREQ(
      roctracer_op_string(ROCPROF_MPI_DOMAIN_CUDA_OPS, ROCPROF_MPI_CUDA_OP_GRAPH_LAUNCH, 0),
      "GRAPH_LAUNCH");
  uint32_t op = 0;
  uint32_t kind = 99;
  ASSERT_EQ(roctracer_op_code(ROCPROF_MPI_DOMAIN_CUDA_RUNTIME_API, "cudaLaunchKernel", &op, &kind),
            ROCTRACER_STATUS_SUCCESS);
  EXPECT_EQ(op, static_cast<uint32_t>(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000));
  EXPECT_EQ(kind, 0U);
  ASSERT_EQ(roctracer_op_code(ROCPROF_MPI_DOMAIN_CUDA_OPS, "MEMSET", &op, nullptr),
            ROCTRACER_STATUS_SUCCESS);
  EXPECT_EQ(op, static_cast<uint32_t>(ROCPROF_MPI_CUDA_OP_MEMSET));
}

TEST(CudaDomains, WhatIsNotAnOperationHasNoName) {
  EXPECT_EQ(roctracer_op_string(ROCPROF_MPI_DOMAIN_CUDA_RUNTIME_API, 0, 0), nullptr);
  EXPECT_EQ(
      roctracer_op_string(ROCPROF_MPI_DOMAIN_CUDA_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE, 0),
      nullptr);
  EXPECT_EQ(roctracer_op_string(ROCPROF_MPI_DOMAIN_CUDA_OPS, ROCPROF_MPI_CUDA_OP_NUMBER, 0),
            nullptr);
  EXPECT_EQ(roctracer_op_string(ROCPROF_MPI_DOMAIN_CUDA_OPS + 1, 0, 0), nullptr);
  EXPECT_NE(std::string(roctracer_error_string()).find("unknown domain"), std::string::npos)
      << roctracer_error_string();
  uint32_t op = 0;
  EXPECT_EQ(roctracer_op_code(ROCPROF_MPI_DOMAIN_CUDA_DRIVER_API, "cudaMalloc", &op, nullptr),
            ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT);
}

TEST(CudaDomains, TracingWithoutADriverFailsWithTheReason) {
  if (driver_present()) GTEST_SKIP() << "this machine has an NVIDIA driver (GPU tests cover it)";
  EXPECT_EQ(roctracer_enable_domain_callback(domain(ROCPROF_MPI_DOMAIN_CUDA_RUNTIME_API),
                                             ignore_call, nullptr),
            ROCTRACER_STATUS_ERROR);
  EXPECT_NE(std::string(roctracer_error_string()).find("libcuda.so.1"), std::string::npos)
      << roctracer_error_string();
  EXPECT_EQ(roctracer_enable_domain_activity(domain(ROCPROF_MPI_DOMAIN_CUDA_OPS)),
            ROCTRACER_STATUS_ERROR);
  EXPECT_EQ(
      roctracer_enable_op_callback(domain(ROCPROF_MPI_DOMAIN_CUDA_DRIVER_API),
                                   CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, ignore_call, nullptr),
      ROCTRACER_STATUS_ERROR);
  // Nothing was left enabled: the disable calls find no callback to remove.
  EXPECT_EQ(roctracer_disable_op_callback(domain(ROCPROF_MPI_DOMAIN_CUDA_DRIVER_API),
                                          CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel),
            ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT);
  // The domain-less calls leave CUDA alone and so still work here.
  EXPECT_EQ(roctracer_enable_callback(ignore_call, nullptr), ROCTRACER_STATUS_SUCCESS);
  EXPECT_EQ(roctracer_disable_callback(), ROCTRACER_STATUS_SUCCESS);
}

TEST(CudaDomains, AnUnknownGraphModeIsRefusedByName) {
  // Checked before anything is loaded: the same on every machine, driver or not.
  ASSERT_EQ(setenv("ROCPROF_MPI_CUDA_GRAPH_TRACE", "kernels", 1), 0);
  EXPECT_EQ(roctracer_enable_domain_activity(domain(ROCPROF_MPI_DOMAIN_CUDA_OPS)),
            ROCTRACER_STATUS_ERROR);
  const std::string error = roctracer_error_string();
  unsetenv("ROCPROF_MPI_CUDA_GRAPH_TRACE");
  EXPECT_NE(error.find("ROCPROF_MPI_CUDA_GRAPH_TRACE='kernels' must be node or graph"),
            std::string::npos)
      << error;
}

TEST(CudaDomains, OpsWithoutApiCallbacksAreRefused) {
  EXPECT_EQ(
      roctracer_enable_domain_callback(domain(ROCPROF_MPI_DOMAIN_CUDA_OPS), ignore_call, nullptr),
      ROCTRACER_STATUS_ERROR_INVALID_DOMAIN_ID);
}

}  // namespace
