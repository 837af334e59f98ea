// The CUDA backend's place in the roctracer API: registered with the core when the library
// loads, so enabling a CUDA domain starts CUPTI and a flush drains it first.
#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>

#include "lib/core/domain_backends.hpp"
#include "lib/core/domain_table.hpp"
#include "lib/runtime/cuda/cuda_names.hpp"
#include "lib/runtime/cuda/cuda_tracer.hpp"

namespace rocprof::runtime::cuda {
namespace {

static_assert(CUPTI_RUNTIME_TRACE_CBID_SIZE <= core::kMaxOpsPerDomain &&
                  CUPTI_DRIVER_TRACE_CBID_SIZE <= core::kMaxOpsPerDomain,
              "raise kMaxOpsPerDomain for the installed CUPTI headers");

bool start(std::string& why) {
  if (!start_cuda_tracing(why)) return false;
  serve_cuda_clients();
  return true;
}

// A roctracer flush hands over the work that finished, as on AMD GPUs: CUPTI's buffers whose
// records are all complete (a forced flush would hand a running kernel over without times).
const core::DomainBackend kCudaBackend{is_cuda_domain, cuda_op_count, cuda_op_string, start,
                                       flush_completed_cuda_tracing};

[[maybe_unused]] const bool kRegistered = [] {
  core::register_domain_backend(kCudaBackend);
  return true;
}();

}  // namespace
}  // namespace rocprof::runtime::cuda
