// The CUDA backend's pure parts, without CUPTI or a GPU: activity records and call parameters
// built by hand as CUPTI would hand them over.
#include <cuda_runtime_api.h>
#include <cupti_activity.h>
#include <cupti_runtime_cbid.h>
#include <generated_cuda_runtime_api_meta.h>

#include <climits>
#include <cstring>

#include <gtest/gtest.h>
#include <rocprof-mpi/cuda_domains.h>

#include "lib/recorder/demangle.hpp"
#include "lib/runtime/cuda/cuda_activity.hpp"
#include "lib/runtime/cuda/cuda_api_args.hpp"

namespace {

using rocprof::format::ActivityRow;
using rocprof::format::ApiCallRow;
using rocprof::format::CopyDirection;
using rocprof::format::MemoryKind;
using namespace rocprof::runtime::cuda;
using rocprof::recorder::demangle;

// CUPTI hands records over as CUpti_Activity, the common head of every record kind.
template <typename Record>
const CUpti_Activity& as_activity(const Record& record) {
  return *static_cast<const CUpti_Activity*>(static_cast<const void*>(&record));
}

template <typename Record>
Record zeroed() {
  Record record;
  std::memset(&record, 0, sizeof record);
  return record;
}

TEST(CudaActivity, KernelBecomesADispatchOnItsDeviceAndStream) {
  auto kernel = zeroed<CUpti_ActivityKernel10>();
  kernel.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  kernel.start = 1000;
  kernel.end = 1750;
  kernel.deviceId = 1;
  kernel.streamId = 13;
  kernel.correlationId = 42;
  kernel.name = "_Z5scalePfi";
  kernel.gridX = 64;
  kernel.gridY = 2;
  kernel.gridZ = 1;
  kernel.blockX = 256;
  kernel.blockY = 1;
  kernel.blockZ = 1;
  kernel.staticSharedMemory = 1024;
  kernel.dynamicSharedMemory = 4096;
  kernel.registersPerThread = 40;
  kernel.contextId = 3;
  ConvertedActivity out;
  ASSERT_TRUE(convert_activity(as_activity(kernel), out));
  EXPECT_EQ(out.row.domain, ROCPROF_MPI_DOMAIN_CUDA_OPS);
  EXPECT_EQ(out.row.op, ROCPROF_MPI_CUDA_OP_KERNEL);
  EXPECT_EQ(out.row.begin_ns, 1000U);
  EXPECT_EQ(out.row.end_ns, 1750U);
  EXPECT_EQ(out.row.correlation_id, 42U);
  EXPECT_EQ(out.row.device_id, 1);
  EXPECT_EQ(out.row.queue_id, queue_of(1, 13));
  EXPECT_STREQ(out.kernel_name, "_Z5scalePfi");
  EXPECT_EQ(demangle(out.kernel_name), "scale(float*, int)");
  EXPECT_EQ((std::array{out.row.grid[0], out.row.grid[1], out.row.grid[2]}),
            (std::array{64U, 2U, 1U}));
  EXPECT_EQ((std::array{out.row.block[0], out.row.block[1], out.row.block[2]}),
            (std::array{256U, 1U, 1U}));
  EXPECT_EQ(out.row.shared_bytes, 5120U);
  EXPECT_EQ(out.row.registers, 40U);
  EXPECT_EQ(out.row.context_id, 3U);
  EXPECT_EQ(out.row.src_kind, MemoryKind::kUnknown);
}

TEST(CudaActivity, CopiesAndSetsKeepTheirBytesAndKind) {
  auto copy = zeroed<CUpti_ActivityMemcpy6>();
  copy.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  copy.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
  copy.bytes = 1 << 20;
  copy.start = 5;
  copy.end = 9;
  copy.streamId = 7;
  copy.contextId = 1;
  copy.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  copy.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
  ConvertedActivity out;
  ASSERT_TRUE(convert_activity(as_activity(copy), out));
  EXPECT_EQ(out.row.src_kind, MemoryKind::kDevice);
  EXPECT_EQ(out.row.dst_kind, MemoryKind::kPinned);
  EXPECT_EQ(out.row.context_id, 1U);
  EXPECT_EQ(out.row.op, ROCPROF_MPI_CUDA_OP_MEMCPY);
  EXPECT_EQ(out.row.bytes, 1U << 20);
  EXPECT_EQ(out.row.kind, static_cast<std::uint32_t>(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH));
  EXPECT_EQ(out.kernel_name, nullptr);

  auto set = zeroed<CUpti_ActivityMemset4>();
  set.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  set.bytes = 4096;
  set.deviceId = 0;
  set.streamId = 7;
  set.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_MANAGED;
  ASSERT_TRUE(convert_activity(as_activity(set), out));
  EXPECT_EQ(out.row.op, ROCPROF_MPI_CUDA_OP_MEMSET);
  EXPECT_EQ(out.row.src_kind, MemoryKind::kUnknown);
  EXPECT_EQ(out.row.dst_kind, MemoryKind::kManaged);
  EXPECT_EQ(out.row.bytes, 4096U);
  EXPECT_EQ(out.row.queue_id, queue_of(0, 7));
}

TEST(CudaActivity, MemoryKindsUnknownToThisBuildAreUnknown) {
  auto copy = zeroed<CUpti_ActivityMemcpy6>();
  copy.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  copy.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
  copy.dstKind = 200;  // a kind newer than this build
  ConvertedActivity out;
  ASSERT_TRUE(convert_activity(as_activity(copy), out));
  EXPECT_EQ(out.row.src_kind, MemoryKind::kPageable);
  EXPECT_EQ(out.row.dst_kind, MemoryKind::kUnknown);
}

TEST(CudaActivity, AGraphLaunchIsOneRecordOnItsStream) {
  auto graph = zeroed<CUpti_ActivityGraphTrace2>();
  graph.kind = CUPTI_ACTIVITY_KIND_GRAPH_TRACE;
  graph.correlationId = 77;
  graph.start = 100;
  graph.end = 900;
  graph.deviceId = 0;
  graph.contextId = 1;
  graph.streamId = 14;
  graph.graphId = 5;
  ConvertedActivity out;
  ASSERT_TRUE(convert_activity(as_activity(graph), out));
  EXPECT_EQ(out.row.op, ROCPROF_MPI_CUDA_OP_GRAPH_LAUNCH);
  EXPECT_EQ(out.row.correlation_id, 77U);
  EXPECT_EQ(out.row.kind, 5U);
  EXPECT_EQ(out.row.queue_id, queue_of(0, 14));
  EXPECT_EQ(out.row.context_id, 1U);
  EXPECT_EQ(out.kernel_name, nullptr);
  // A graph that starts with a host node: the device and context of its last node.
  graph.deviceId = INT_MAX;
  graph.contextId = INT_MAX;
  graph.endDeviceId = 2;
  graph.endContextId = 4;
  ASSERT_TRUE(convert_activity(as_activity(graph), out));
  EXPECT_EQ(out.row.device_id, 2);
  EXPECT_EQ(out.row.queue_id, queue_of(2, 14));
  EXPECT_EQ(out.row.context_id, 4U);
}

TEST(CudaActivity, HostWaitsHaveNoDevice) {
  auto wait = zeroed<CUpti_ActivitySynchronization2>();
  wait.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  wait.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
  wait.streamId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
  wait.start = 10;
  wait.end = 20;
  ConvertedActivity out;
  ASSERT_TRUE(convert_activity(as_activity(wait), out));
  EXPECT_EQ(out.row.op, ROCPROF_MPI_CUDA_OP_SYNCHRONIZATION);
  EXPECT_EQ(out.row.device_id, -1);
  EXPECT_EQ(out.row.queue_id, 0U);
}

TEST(CudaActivity, OtherKindsAreNotGpuWork) {
  auto link = zeroed<CUpti_ActivityExternalCorrelation>();
  link.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
  ConvertedActivity out;
  EXPECT_FALSE(convert_activity(as_activity(link), out));
}

TEST(CudaActivity, NamesThatAreNotMangledStayAsTheyAre) {
  EXPECT_EQ(demangle("vector_add"), "vector_add");
  EXPECT_EQ(demangle(nullptr), "");
  EXPECT_EQ(demangle("_Z7stencilIdEvPT_S1_i"), "void stencil<double>(double*, double*, int)");
  EXPECT_STREQ(cuda_op_name(ROCPROF_MPI_CUDA_OP_MEMSET), "MEMSET");
  EXPECT_EQ(cuda_op_name(ROCPROF_MPI_CUDA_OP_NUMBER), nullptr);
}

TEST(CudaApiArgs, LaunchesAndCopiesAreDecoded) {
  int stream_object = 0;
  const auto stream = reinterpret_cast<cudaStream_t>(&stream_object);
  cudaLaunchKernel_v7000_params launch{};
  launch.gridDim = dim3(64, 2, 1);
  launch.blockDim = dim3(256, 1, 1);
  launch.stream = stream;
  ApiCallRow row{};
  decode_runtime_args(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &launch, row);
  EXPECT_EQ((std::array{row.grid[0], row.grid[1], row.grid[2]}), (std::array{64U, 2U, 1U}));
  EXPECT_EQ(row.block[0], 256U);
  EXPECT_EQ(row.stream, reinterpret_cast<std::uintptr_t>(stream));

  cudaMemcpyAsync_v3020_params copy{};
  copy.count = 12345;
  copy.kind = cudaMemcpyDeviceToHost;
  copy.stream = stream;
  row = ApiCallRow{};
  decode_runtime_args(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, &copy, row);
  EXPECT_EQ(row.bytes, 12345U);
  EXPECT_EQ(row.copy_direction, CopyDirection::kDeviceToHost);

  // Calls without decoded arguments, and missing parameters, leave the row alone.
  row = ApiCallRow{};
  decode_runtime_args(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, &copy, row);
  decode_runtime_args(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, nullptr, row);
  EXPECT_EQ(row.bytes, 0U);
  EXPECT_EQ(row.copy_direction, CopyDirection::kNone);
}

}  // namespace
