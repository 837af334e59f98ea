// GPU track and copy names on the merged timeline, CUDA's and HIP's.
#include <gtest/gtest.h>

#include "lib/include/rocprof-mpi/cuda_domains.h"
#include "merge/events/gpu_names.hpp"

namespace {

using rocprof::format::MemoryKind;
using rocprof::merge::copy_name;
using rocprof::merge::gpu_track_name;
using rocprof::merge::memory_kind_name;

TEST(GpuNames, CudaQueuesAreStreamsOfADevice) {
  const std::uint64_t queue = (std::uint64_t{1} << 32) | 13;
  EXPECT_EQ(gpu_track_name(ROCPROF_MPI_DOMAIN_CUDA_OPS, 1, queue), "GPU 1 stream 13");
  EXPECT_EQ(gpu_track_name(ROCPROF_MPI_DOMAIN_CUDA_OPS, -1, 0), "CUDA host waits");
  EXPECT_EQ(gpu_track_name(2, 0, 4), "GPU 0 queue 4");  // HIP ops
}

TEST(GpuNames, CudaCopiesAreNamedByDirection) {
  EXPECT_EQ(copy_name(ROCPROF_MPI_DOMAIN_CUDA_OPS, 1), "memcpy HtoD");
  EXPECT_EQ(copy_name(ROCPROF_MPI_DOMAIN_CUDA_OPS, 8), "memcpy DtoD");
  EXPECT_EQ(copy_name(ROCPROF_MPI_DOMAIN_CUDA_OPS, 99), "copy (kind 99)");
  EXPECT_EQ(copy_name(2, 1), "copy (kind 1)");
}

TEST(GpuNames, MemoryKindsHaveNamesUnknownOnesNone) {
  EXPECT_STREQ(memory_kind_name(MemoryKind::kPageable), "pageable");
  EXPECT_STREQ(memory_kind_name(MemoryKind::kPinned), "pinned");
  EXPECT_STREQ(memory_kind_name(MemoryKind::kDevice), "device");
  EXPECT_STREQ(memory_kind_name(MemoryKind::kManagedStatic), "managed static");
  EXPECT_STREQ(memory_kind_name(MemoryKind::kUnknown), "");
  EXPECT_STREQ(memory_kind_name(static_cast<MemoryKind>(200)), "");  // a newer file's kind
}

}  // namespace
