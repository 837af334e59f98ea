#include "lib/runtime/cuda/cuda_api_args.hpp"

#include <cuda_runtime_api.h>
#include <cupti_runtime_cbid.h>
#include <generated_cuda_runtime_api_meta.h>

namespace rocprof::runtime::cuda {
namespace {

format::CopyDirection direction(cudaMemcpyKind kind) noexcept {
  switch (kind) {
    case cudaMemcpyHostToHost:
      return format::CopyDirection::kHostToHost;
    case cudaMemcpyHostToDevice:
      return format::CopyDirection::kHostToDevice;
    case cudaMemcpyDeviceToHost:
      return format::CopyDirection::kDeviceToHost;
    case cudaMemcpyDeviceToDevice:
      return format::CopyDirection::kDeviceToDevice;
    case cudaMemcpyDefault:
      return format::CopyDirection::kDefault;
  }
  return format::CopyDirection::kNone;
}

std::uint64_t handle(const void* stream) noexcept {
  return reinterpret_cast<std::uintptr_t>(stream);
}

template <typename Params>
const Params& as(const void* params) noexcept {
  return *static_cast<const Params*>(params);
}

}  // namespace

void decode_runtime_args(std::uint32_t cbid, const void* params, format::ApiCallRow& row) noexcept {
  if (params == nullptr) return;
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000: {
      const auto& p = as<cudaLaunchKernel_v7000_params>(params);
      row.grid[0] = p.gridDim.x;
      row.grid[1] = p.gridDim.y;
      row.grid[2] = p.gridDim.z;
      row.block[0] = p.blockDim.x;
      row.block[1] = p.blockDim.y;
      row.block[2] = p.blockDim.z;
      row.stream = handle(p.stream);
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020: {
      const auto& p = as<cudaMemcpy_v3020_params>(params);
      row.bytes = p.count;
      row.copy_direction = direction(p.kind);
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020: {
      const auto& p = as<cudaMemcpyAsync_v3020_params>(params);
      row.bytes = p.count;
      row.copy_direction = direction(p.kind);
      row.stream = handle(p.stream);
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020:
      row.bytes = as<cudaMemset_v3020_params>(params).count;
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020: {
      const auto& p = as<cudaMemsetAsync_v3020_params>(params);
      row.bytes = p.count;
      row.stream = handle(p.stream);
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020:
      row.stream = handle(as<cudaStreamSynchronize_v3020_params>(params).stream);
      break;
    default:
      break;
  }
}

}  // namespace rocprof::runtime::cuda
