#include "lib/runtime/hip/hip_args.hpp"

#include <array>

#include <roctracer/roctracer_hip.h>

namespace rocprof::runtime::hip {
namespace {

using format::CopyDirection;

CopyDirection direction(hipMemcpyKind kind) {
  switch (kind) {
    case hipMemcpyHostToHost:
      return CopyDirection::kHostToHost;
    case hipMemcpyHostToDevice:
      return CopyDirection::kHostToDevice;
    case hipMemcpyDeviceToHost:
      return CopyDirection::kDeviceToHost;
    case hipMemcpyDeviceToDevice:
      return CopyDirection::kDeviceToDevice;
    default:
      return CopyDirection::kDefault;
  }
}

std::uint64_t stream_id(hipStream_t stream) { return reinterpret_cast<std::uintptr_t>(stream); }

void set_dims(std::uint32_t (&out)[3], const dim3& dims) {
  out[0] = dims.x;
  out[1] = dims.y;
  out[2] = dims.z;
}

constexpr std::array kOps = {
    std::uint32_t{HIP_API_ID_hipMemcpy},
    std::uint32_t{HIP_API_ID_hipMemcpyAsync},
    std::uint32_t{HIP_API_ID_hipMemcpyHtoD},
    std::uint32_t{HIP_API_ID_hipMemcpyHtoDAsync},
    std::uint32_t{HIP_API_ID_hipMemcpyDtoH},
    std::uint32_t{HIP_API_ID_hipMemcpyDtoHAsync},
    std::uint32_t{HIP_API_ID_hipMemcpyDtoD},
    std::uint32_t{HIP_API_ID_hipMemcpyDtoDAsync},
    std::uint32_t{HIP_API_ID_hipMemset},
    std::uint32_t{HIP_API_ID_hipMemsetAsync},
    std::uint32_t{HIP_API_ID_hipMalloc},
    std::uint32_t{HIP_API_ID_hipHostMalloc},
    std::uint32_t{HIP_API_ID_hipMallocManaged},
    std::uint32_t{HIP_API_ID_hipLaunchKernel},
    std::uint32_t{HIP_API_ID_hipModuleLaunchKernel},
    std::uint32_t{HIP_API_ID_hipStreamSynchronize},
};

}  // namespace

std::span<const std::uint32_t> hip_ops_with_args() noexcept { return kOps; }

bool decode_hip_args(std::uint32_t op, const hip_api_data_s& data, ApiArgsRow& a,
                     KernelRef& kernel) noexcept {
  const auto& args = data.args;
  kernel = runtime::hip::launched_kernel(op, data);
  switch (op) {
    case HIP_API_ID_hipMemcpy:
      a.bytes = args.hipMemcpy.sizeBytes;
      a.copy_direction = direction(args.hipMemcpy.kind);
      return true;
    case HIP_API_ID_hipMemcpyAsync:
      a.bytes = args.hipMemcpyAsync.sizeBytes;
      a.copy_direction = direction(args.hipMemcpyAsync.kind);
      a.stream = stream_id(args.hipMemcpyAsync.stream);
      return true;
    case HIP_API_ID_hipMemcpyHtoD:
      a.bytes = args.hipMemcpyHtoD.sizeBytes;
      a.copy_direction = CopyDirection::kHostToDevice;
      return true;
    case HIP_API_ID_hipMemcpyHtoDAsync:
      a.bytes = args.hipMemcpyHtoDAsync.sizeBytes;
      a.copy_direction = CopyDirection::kHostToDevice;
      a.stream = stream_id(args.hipMemcpyHtoDAsync.stream);
      return true;
    case HIP_API_ID_hipMemcpyDtoH:
      a.bytes = args.hipMemcpyDtoH.sizeBytes;
      a.copy_direction = CopyDirection::kDeviceToHost;
      return true;
    case HIP_API_ID_hipMemcpyDtoHAsync:
      a.bytes = args.hipMemcpyDtoHAsync.sizeBytes;
      a.copy_direction = CopyDirection::kDeviceToHost;
      a.stream = stream_id(args.hipMemcpyDtoHAsync.stream);
      return true;
    case HIP_API_ID_hipMemcpyDtoD:
      a.bytes = args.hipMemcpyDtoD.sizeBytes;
      a.copy_direction = CopyDirection::kDeviceToDevice;
      return true;
    case HIP_API_ID_hipMemcpyDtoDAsync:
      a.bytes = args.hipMemcpyDtoDAsync.sizeBytes;
      a.copy_direction = CopyDirection::kDeviceToDevice;
      a.stream = stream_id(args.hipMemcpyDtoDAsync.stream);
      return true;
    case HIP_API_ID_hipMemset:
      a.bytes = args.hipMemset.sizeBytes;
      return true;
    case HIP_API_ID_hipMemsetAsync:
      a.bytes = args.hipMemsetAsync.sizeBytes;
      a.stream = stream_id(args.hipMemsetAsync.stream);
      return true;
    case HIP_API_ID_hipMalloc:
      a.bytes = args.hipMalloc.size;
      return true;
    case HIP_API_ID_hipHostMalloc:
      a.bytes = args.hipHostMalloc.size;
      return true;
    case HIP_API_ID_hipMallocManaged:
      a.bytes = args.hipMallocManaged.size;
      return true;
    case HIP_API_ID_hipLaunchKernel:
      set_dims(a.grid, args.hipLaunchKernel.numBlocks);
      set_dims(a.block, args.hipLaunchKernel.dimBlocks);
      a.stream = stream_id(args.hipLaunchKernel.stream);
      return true;
    case HIP_API_ID_hipModuleLaunchKernel: {
      const auto& launch = args.hipModuleLaunchKernel;
      a.grid[0] = launch.gridDimX;
      a.grid[1] = launch.gridDimY;
      a.grid[2] = launch.gridDimZ;
      a.block[0] = launch.blockDimX;
      a.block[1] = launch.blockDimY;
      a.block[2] = launch.blockDimZ;
      a.stream = stream_id(launch.stream);
      return true;
    }
    case HIP_API_ID_hipStreamSynchronize:
      a.stream = stream_id(args.hipStreamSynchronize.stream);
      return true;
    default:
      return false;
  }
}

}  // namespace rocprof::runtime::hip
