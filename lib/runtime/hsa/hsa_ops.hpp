// HSA device work (ACTIVITY_DOMAIN_HSA_OPS): kernel dispatches timed by intercepting the
// application's queues (the AMD queue-intercept extension swaps each dispatch's completion
// signal for one of ours and reads hsa_amd_profiling_get_dispatch_time when it fires), and
// hsa_amd_memory_async_copy timed the same way (hsa_amd_profiling_get_async_copy_time). Times
// are put on the host clock with the runtime's own conversion; each operation carries the
// correlation id of the traced API call that made it, and a dispatch its kernel's name (from
// the kernel symbols of each executable, learnt as it is frozen).
#pragma once

#define AMD_INTERNAL_BUILD 1
#include <hsa/hsa_api_trace.h>

#include <cstddef>

namespace rocprof::runtime::hsa {

// Takes over queue creation and asynchronous copies in `core` and `amd_ext` (the runtime's
// saved entries, which the HSA_API wrappers call): the runtime's functions are kept and
// called. Does nothing when the runtime lacks a function it needs (`*_bytes`: how much of
// each table the runtime filled).
void intercept_device_work(CoreApiTable& core, std::size_t core_bytes, AmdExtTable& amd_ext,
                           std::size_t amd_ext_bytes) noexcept;

}  // namespace rocprof::runtime::hsa
