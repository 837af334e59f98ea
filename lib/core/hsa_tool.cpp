// Entry points the HSA runtime looks for in a library named by HSA_TOOLS_LIB. The HSA
// backend (a later layer) wraps the API table here; until then loading is accepted and the
// table is kept untouched.
#include <cstdint>

#include <roctracer/roctracer.h>

#include "lib/core/activity_router.hpp"

// Only stored here, so the type stays incomplete (Debian's hsa_api_trace.h needs
// AMD_INTERNAL_BUILD to find its own includes).
struct HsaApiTable;

namespace {
HsaApiTable* g_hsa_table = nullptr;

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
  g_hsa_table = table;
  return true;
}

ROCTRACER_API void OnUnload() { g_hsa_table = nullptr; }

}  // extern "C"
