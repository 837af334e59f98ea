// The operations of the CUDA domains as the roctracer API shows them: how many there are and
// their names. API call names come from CUPTI (loaded on first use; no driver needed).
#pragma once

#include <cstdint>
#include <string_view>

namespace rocprof::runtime::cuda {

// True for the three CUDA domains of rocprof-mpi/cuda_domains.h.
bool is_cuda_domain(std::uint32_t domain) noexcept;

// Number of op ids of a CUDA domain (ids are 0 .. count-1; 0 itself is no call); 0 for others.
std::uint32_t cuda_op_count(std::uint32_t domain) noexcept;

// Name of an op: "cudaMemcpyAsync" (without CUPTI's "_v3020" version suffix), "cuLaunchKernel",
// "KERNEL". nullptr when the op is not one of the domain or CUPTI cannot be loaded. The text
// lives as long as the process.
const char* cuda_op_string(std::uint32_t domain, std::uint32_t op) noexcept;

// CUPTI's callback name without its version suffix: "cudaMemcpy_v3020" -> "cudaMemcpy".
std::string_view without_version_suffix(std::string_view name) noexcept;

}  // namespace rocprof::runtime::cuda
