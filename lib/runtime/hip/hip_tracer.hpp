// The HIP 5.2 backend: HIP API calls (ACTIVITY_DOMAIN_HIP_API) and the device work they
// issue (ACTIVITY_DOMAIN_HIP_OPS) from the application's libamdhip64, through the interface
// HIP 5.2 exports for tracers (hipRegisterApiCallback, hipRegisterActivityCallback,
// hipInitActivityCallback, hipEnableActivityCallback), into the core's callbacks and pools.
// HIP 5.4 and later hand their API table to rocprofiler-register instead (lib/register).
#pragma once

#include <string>

namespace rocprof::runtime::hip {

// Attaches to the HIP runtime already loaded in the process (never loads one): registers
// for every API call and device operation. True when attached, or when the process has no
// HIP 5.2 runtime (nothing to trace: `why` says so); idempotent.
bool start_hip_tracing(std::string& why);

}  // namespace rocprof::runtime::hip
