#include "lib/recorder/cuda_binding.hpp"

#include <rocprof-mpi/cuda_domains.h>
#include <rocprof-mpi/external_id.h>

#include "lib/core/clock.hpp"
#include "lib/recorder/private_write.hpp"
#include "lib/runtime/cuda/cuda_tracer.hpp"

namespace rocprof::recorder {
namespace {

void record_api_call(const format::ApiCallRow& call, const char* symbol) noexcept {
  write_private_into<format::ApiCallRow>(recording_pool(), kCudaApiDomain, symbol,
                                         [&](format::ApiCallRow& row) { row = call; });
}

void record_activity(const format::ActivityRow& work, const char* kernel) noexcept {
  write_private_into<format::ActivityRow>(recording_pool(), kCudaActivityDomain, kernel,
                                          [&](format::ActivityRow& row) { row = work; });
}

std::uint64_t external_id() noexcept { return rocprof_mpi_current_external_id(); }
std::uint64_t now() noexcept { return core::now_ns(); }

}  // namespace

bool start_cuda_recording(std::string& error) {
  runtime::cuda::CudaSink sink;
  sink.api_call = record_api_call;
  sink.activity = record_activity;
  sink.external_id = external_id;
  sink.now = now;
  return runtime::cuda::start_cuda_tracing(sink, error);
}

void flush_cuda_recording() noexcept { runtime::cuda::flush_cuda_tracing(); }

std::uint64_t cuda_records_dropped() noexcept { return runtime::cuda::cuda_records_dropped(); }

bool is_cuda_domain(std::uint32_t domain) noexcept {
  return domain == ROCPROF_MPI_DOMAIN_CUDA_RUNTIME_API ||
         domain == ROCPROF_MPI_DOMAIN_CUDA_DRIVER_API || domain == ROCPROF_MPI_DOMAIN_CUDA_OPS;
}

std::string cuda_op_name(std::uint32_t domain, std::uint32_t op) {
  const char* raw = runtime::cuda::cuda_op_string(domain, op);
  std::string name = raw != nullptr ? raw : "";
  // CUPTI names calls by their version ("cudaMemcpy_v3020"); users know them without it.
  if (const std::size_t suffix = name.rfind("_v");
      suffix != std::string::npos && suffix + 2 < name.size() &&
      name.find_first_not_of("0123456789", suffix + 2) == std::string::npos)
    name.resize(suffix);
  return name;
}

}  // namespace rocprof::recorder
