// The tracer's host clock.
#pragma once

#include <cstdint>
#include <ctime>

namespace rocprof::core {

// CLOCK_BOOTTIME in ns: the clock the ROCm runtime uses for system timestamps, so GPU times
// converted by the runtime compare directly. Served by the vDSO: no system call.
inline std::uint64_t now_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_BOOTTIME, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ULL +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

}  // namespace rocprof::core
