// Entry points the HSA runtime looks for in a library named by HSA_TOOLS_LIB: the runtime's
// API table is wrapped here so its calls reach ACTIVITY_DOMAIN_HSA_API, and its queues and
// copies are intercepted so their device work reaches ACTIVITY_DOMAIN_HSA_OPS (hsa_ops.hpp).
#include <cstdint>

#include <roctracer/roctracer.h>

#include "lib/core/activity_router.hpp"
#include "lib/runtime/hsa/hsa_api_intercept.hpp"

namespace {

// Process exit: hand every open pool's records to its callback before the process is gone.
__attribute__((destructor)) void flush_pools_at_exit() { rocprof::core::flush_all_pools(); }
}  // namespace

extern "C" {

// Load order among HSA tools; the value roctracer uses.
ROCTRACER_API extern const uint32_t HSA_AMD_TOOL_PRIORITY;
const uint32_t HSA_AMD_TOOL_PRIORITY = 50;

ROCTRACER_API bool OnLoad(HsaApiTable* table, uint64_t /*runtime_version*/,
                          uint64_t /*failed_tool_count*/,
                          const char* const* /*failed_tool_names*/) {
  // A table already wrapped through rocprofiler-register is accepted again; a second runtime's
  // is not wrapped, but loading still succeeds so the runtime carries on.
  rocprof::runtime::hsa::intercept_api_table(table);
  return true;
}

// The runtime's entries stay wrapped: it unloads its tools as it shuts down, after the last
// call through the table.
ROCTRACER_API void OnUnload() {}

}  // extern "C"
