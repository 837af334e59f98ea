// The CUDA backend: CUDA runtime and driver API calls through CUPTI's callback API, GPU work
// (kernels, copies, memsets, host waits) through its activity API, on the caller's clock.
//
// Records go to a sink the caller provides (the recorder writes them into its pool); the
// backend owns nothing else. CUPTI is loaded only when tracing starts.
#pragma once

#include <cstdint>
#include <string>

#include "lib/format/records.hpp"

namespace rocprof::runtime::cuda {

struct CudaSink {
  // An API call ended (on the calling thread): the row without thread id and kernel name;
  // `symbol` is the launched kernel's mangled name, or nullptr.
  void (*api_call)(const format::ApiCallRow& row, const char* symbol) noexcept = nullptr;
  // GPU work was timed (on CUPTI's buffer thread): the row without kernel name; `kernel` is
  // the kernel's mangled name, or nullptr.
  void (*activity)(const format::ActivityRow& row, const char* kernel) noexcept = nullptr;
  // The calling thread's innermost external id, 0 if none.
  std::uint64_t (*external_id)() noexcept = nullptr;
  // The trace clock (ns); CUPTI's GPU timestamps are converted to it.
  std::uint64_t (*now)() noexcept = nullptr;
};

// Loads CUPTI and subscribes. False with `error` set when CUPTI or a CUDA driver is missing,
// or another CUPTI client (a profiler) holds the subscription.
bool start_cuda_tracing(const CudaSink& sink, std::string& error);

// Delivers every record CUPTI still holds (at exit, before a context is destroyed).
void flush_cuda_tracing() noexcept;

// Records CUPTI dropped for lack of buffer space.
std::uint64_t cuda_records_dropped() noexcept;

// The name of an API call ("cudaLaunchKernel") of ROCPROF_MPI_DOMAIN_CUDA_RUNTIME_API or
// _DRIVER_API, nullptr if unknown; of an op of ROCPROF_MPI_DOMAIN_CUDA_OPS ("KERNEL").
const char* cuda_op_string(std::uint32_t domain, std::uint32_t op) noexcept;

}  // namespace rocprof::runtime::cuda
