// The HIP 5.2 backend's place in the roctracer API: enabling a HIP domain attaches to the
// process's HIP runtime (hip_tracer.cpp). Op names and counts stay the domain table's.
#include <roctracer/roctracer_hip.h>

#include "lib/core/domain_backends.hpp"
#include "lib/core/domain_table.hpp"
#include "lib/runtime/hip/hip_tracer.hpp"

namespace rocprof::runtime::hip {
namespace {

bool owns(std::uint32_t domain) noexcept {
  return domain == ACTIVITY_DOMAIN_HIP_API || domain == ACTIVITY_DOMAIN_HIP_OPS;
}

std::uint32_t op_count(std::uint32_t domain) noexcept { return core::op_count(domain); }

const char* op_name(std::uint32_t domain, std::uint32_t op) noexcept {
  return core::op_name(domain, op, 0);
}

// No HIP in the process is no error: there is nothing to trace.
bool start(std::string& /*why*/) {
  std::string note;
  return start_hip_tracing(note);
}

void flush() noexcept {}  // HIP hands each operation over as it completes

const core::DomainBackend kHipBackend{owns, op_count, op_name, start, flush};

[[maybe_unused]] const bool kRegistered = [] {
  core::register_domain_backend(kHipBackend);
  return true;
}();

}  // namespace
}  // namespace rocprof::runtime::hip
