// The recorder end to end behind a simulated HIP 5.2 runtime (no GPU exists here): calls are
// reported through the core's dispatch with real hip_api_data_t callback data, as the HIP
// backend will; the rank file must hold each call with its decoded arguments, the kernel
// names the runtime's lookups return, and the external ids pushed around them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include <roctracer/roctracer_ext.h>
#include <roctracer/roctracer_hip.h>

#include "lib/core/api_dispatch.hpp"
#include "lib/format/rank_file_reader.hpp"
#include "lib/recorder/recorder.hpp"
#include "lib/runtime/hip/hip_args.hpp"

// The simulated runtime's kernel-name lookups (the recorder finds them with dlsym, as it
// finds libamdhip64's).
extern "C" __attribute__((visibility("default"))) const char* hipKernelNameRefByPtr(
    const void* function, hipStream_t /*stream*/) {
  return function != nullptr ? "simulated_stencil(double*, int)" : nullptr;
}
extern "C" __attribute__((visibility("default"))) const char* hipKernelNameRef(hipFunction_t f) {
  return f != nullptr ? "module_kernel" : nullptr;
}

namespace {

namespace fs = std::filesystem;
using namespace rocprof::format;

// hip_api_data_t has non-trivial members (dim3): raw storage, as the runtime's own.
struct CallData {
  alignas(hip_api_data_t) unsigned char storage[sizeof(hip_api_data_t)] = {};
  hip_api_data_t& get() { return *reinterpret_cast<hip_api_data_t*>(storage); }
};

void simulated_call(std::uint32_t op, CallData& call) {
  const auto scope = rocprof::core::enter_api_call(ACTIVITY_DOMAIN_HIP_API, op, call.get());
  rocprof::core::exit_api_call(scope, call.get());
}

void stencil_stub() {}

TEST(SimulatedHip, DecodedArgumentsReachTheRankFile) {
  const fs::path dir = fs::temp_directory_path() / ("simulated_hip_" + std::to_string(getpid()));
  fs::remove_all(dir);
  // Set before the recorder starts its thread.
  setenv("ROCPROF_MPI_OUTPUT_DIR", dir.c_str(), 1);  // NOLINT(concurrency-mt-unsafe)
  setenv("ROCPROF_MPI_OUTPUT_FILE", "sim.h5", 1);    // NOLINT(concurrency-mt-unsafe)
  rocprof::recorder::start_recording();

  // A made-up handle: the rank file must show its value.
  // NOLINTNEXTLINE(performance-no-int-to-ptr)
  auto* const stream = reinterpret_cast<hipStream_t>(std::uintptr_t{0x1234});
  CallData copy;
  copy.get().args.hipMemcpyAsync.sizeBytes = 4096;
  copy.get().args.hipMemcpyAsync.kind = hipMemcpyHostToDevice;
  copy.get().args.hipMemcpyAsync.stream = stream;
  simulated_call(HIP_API_ID_hipMemcpyAsync, copy);

  CallData launch;
  launch.get().args.hipLaunchKernel.function_address = reinterpret_cast<const void*>(&stencil_stub);
  launch.get().args.hipLaunchKernel.numBlocks = dim3(64, 2, 1);
  launch.get().args.hipLaunchKernel.dimBlocks = dim3(256, 1, 1);
  launch.get().args.hipLaunchKernel.stream = stream;
  ASSERT_EQ(roctracer_activity_push_external_correlation_id(77), ROCTRACER_STATUS_SUCCESS);
  simulated_call(HIP_API_ID_hipLaunchKernel, launch);
  ASSERT_EQ(roctracer_activity_pop_external_correlation_id(nullptr), ROCTRACER_STATUS_SUCCESS);

  CallData module;
  // A made-up function handle: only that it is not null matters.
  // NOLINTNEXTLINE(performance-no-int-to-ptr)
  module.get().args.hipModuleLaunchKernel.f = reinterpret_cast<hipFunction_t>(std::uintptr_t{0x99});
  module.get().args.hipModuleLaunchKernel.gridDimX = 8;
  module.get().args.hipModuleLaunchKernel.gridDimY = 4;
  module.get().args.hipModuleLaunchKernel.gridDimZ = 2;
  module.get().args.hipModuleLaunchKernel.blockDimX = 32;
  module.get().args.hipModuleLaunchKernel.blockDimY = 2;
  module.get().args.hipModuleLaunchKernel.blockDimZ = 1;
  simulated_call(HIP_API_ID_hipModuleLaunchKernel, module);

  CallData allocation;
  allocation.get().args.hipMalloc.size = 1 << 20;
  simulated_call(HIP_API_ID_hipMalloc, allocation);

  CallData query;  // no arguments worth decoding
  simulated_call(HIP_API_ID_hipGetDevice, query);

  rocprof::recorder::finish_recording();

  const RankFileReader reader((dir / "sim.h5").string());
  const auto calls = reader.read_all<ApiCallRow>();
  ASSERT_EQ(calls.size(), 5U);
  EXPECT_EQ(calls[0].op, std::uint32_t{HIP_API_ID_hipMemcpyAsync});
  EXPECT_EQ(calls[0].bytes, 4096U);
  EXPECT_EQ(calls[0].copy_direction, CopyDirection::kHostToDevice);
  EXPECT_EQ(calls[0].stream, 0x1234U);
  EXPECT_EQ(calls[0].external_id, 0U);
  EXPECT_LE(calls[0].begin_ns, calls[0].end_ns);

  EXPECT_EQ(calls[1].op, std::uint32_t{HIP_API_ID_hipLaunchKernel});
  EXPECT_EQ(reader.string(calls[1].kernel_name), "simulated_stencil(double*, int)");
  EXPECT_EQ(calls[1].grid[0], 64U);
  EXPECT_EQ(calls[1].grid[1], 2U);
  EXPECT_EQ(calls[1].block[0], 256U);
  EXPECT_EQ(calls[1].stream, 0x1234U);
  EXPECT_EQ(calls[1].external_id, 77U);

  EXPECT_EQ(reader.string(calls[2].kernel_name), "module_kernel");
  EXPECT_EQ(calls[2].grid[2], 2U);
  EXPECT_EQ(calls[2].block[1], 2U);

  EXPECT_EQ(calls[3].bytes, 1U << 20);
  EXPECT_EQ(calls[3].copy_direction, CopyDirection::kNone);
  EXPECT_EQ(calls[4].op, std::uint32_t{HIP_API_ID_hipGetDevice});
  EXPECT_EQ(calls[4].bytes, 0U);
  EXPECT_EQ(calls[4].kernel_name, 0U);

  const auto externals = reader.read_all<ExternalCorrelationRow>();
  ASSERT_EQ(externals.size(), 1U);
  EXPECT_EQ(externals[0].correlation_id, calls[1].correlation_id);
  EXPECT_EQ(externals[0].external_id, 77U);

  bool named = false;
  for (const OpNameRow& row : reader.read_all<OpNameRow>())
    named |= row.op == HIP_API_ID_hipMemcpyAsync && reader.string(row.name) == "hipMemcpyAsync";
  EXPECT_TRUE(named);
  EXPECT_TRUE(reader.status().complete);
  fs::remove_all(dir);
}

TEST(SimulatedHip, EveryCopySetAndAllocationOpIsDecoded) {
  using rocprof::runtime::hip::ApiArgsRow;
  using rocprof::runtime::hip::decode_hip_args;
  using rocprof::runtime::hip::KernelRef;
  struct Case {
    std::uint32_t op;
    void (*fill)(hip_api_data_t&);
    CopyDirection direction;
    bool has_stream;
  };
  // A made-up stream handle, as above.
  // NOLINTNEXTLINE(performance-no-int-to-ptr)
  auto* const s = reinterpret_cast<hipStream_t>(std::uintptr_t{0x77});
  static hipStream_t stream;
  stream = s;
  const Case cases[] = {
      {HIP_API_ID_hipMemcpy,
       [](hip_api_data_t& d) {
         d.args.hipMemcpy = {nullptr, nullptr, 99, hipMemcpyDeviceToHost};
       },
       CopyDirection::kDeviceToHost, false},
      {HIP_API_ID_hipMemcpyHtoD, [](hip_api_data_t& d) { d.args.hipMemcpyHtoD.sizeBytes = 99; },
       CopyDirection::kHostToDevice, false},
      {HIP_API_ID_hipMemcpyHtoDAsync,
       [](hip_api_data_t& d) {
         d.args.hipMemcpyHtoDAsync.sizeBytes = 99;
         d.args.hipMemcpyHtoDAsync.stream = stream;
       },
       CopyDirection::kHostToDevice, true},
      {HIP_API_ID_hipMemcpyDtoH, [](hip_api_data_t& d) { d.args.hipMemcpyDtoH.sizeBytes = 99; },
       CopyDirection::kDeviceToHost, false},
      {HIP_API_ID_hipMemcpyDtoHAsync,
       [](hip_api_data_t& d) {
         d.args.hipMemcpyDtoHAsync.sizeBytes = 99;
         d.args.hipMemcpyDtoHAsync.stream = stream;
       },
       CopyDirection::kDeviceToHost, true},
      {HIP_API_ID_hipMemcpyDtoD, [](hip_api_data_t& d) { d.args.hipMemcpyDtoD.sizeBytes = 99; },
       CopyDirection::kDeviceToDevice, false},
      {HIP_API_ID_hipMemcpyDtoDAsync,
       [](hip_api_data_t& d) {
         d.args.hipMemcpyDtoDAsync.sizeBytes = 99;
         d.args.hipMemcpyDtoDAsync.stream = stream;
       },
       CopyDirection::kDeviceToDevice, true},
      {HIP_API_ID_hipMemcpyAsync,
       [](hip_api_data_t& d) {
         d.args.hipMemcpyAsync.sizeBytes = 99;
         d.args.hipMemcpyAsync.kind = hipMemcpyDefault;
         d.args.hipMemcpyAsync.stream = stream;
       },
       CopyDirection::kDefault, true},
      {HIP_API_ID_hipMemset, [](hip_api_data_t& d) { d.args.hipMemset.sizeBytes = 99; },
       CopyDirection::kNone, false},
      {HIP_API_ID_hipMemsetAsync,
       [](hip_api_data_t& d) {
         d.args.hipMemsetAsync.sizeBytes = 99;
         d.args.hipMemsetAsync.stream = stream;
       },
       CopyDirection::kNone, true},
      {HIP_API_ID_hipHostMalloc, [](hip_api_data_t& d) { d.args.hipHostMalloc.size = 99; },
       CopyDirection::kNone, false},
      {HIP_API_ID_hipMallocManaged, [](hip_api_data_t& d) { d.args.hipMallocManaged.size = 99; },
       CopyDirection::kNone, false},
  };
  for (const Case& c : cases) {
    CallData call;
    c.fill(call.get());
    ApiArgsRow args{};
    KernelRef kernel;
    ASSERT_TRUE(decode_hip_args(c.op, call.get(), args, kernel)) << c.op;
    EXPECT_EQ(args.bytes, 99U) << c.op;
    EXPECT_EQ(args.copy_direction, c.direction) << c.op;
    EXPECT_EQ(args.stream, c.has_stream ? 0x77U : 0U) << c.op;
    EXPECT_EQ(kernel.kind, KernelRef::Kind::kNone) << c.op;
  }
  CallData call;
  ApiArgsRow args{};
  KernelRef kernel;
  EXPECT_FALSE(decode_hip_args(HIP_API_ID_hipDeviceSynchronize, call.get(), args, kernel));
}

}  // namespace
