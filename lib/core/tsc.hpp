// The CPU's time-stamp counter: a cheaper timestamp than clock_gettime for the hottest
// recording paths (MPI calls). Ticks are not nanoseconds: the recorder converts them to
// CLOCK_BOOTTIME nanoseconds before they reach a file (lib/recorder/tick_clock.hpp).
#pragma once

#include <x86intrin.h>

#include <cstdint>

namespace rocprof::core {

// Ordered as clock_gettime's own read is: the fence keeps the counter from being read before
// the instructions ahead of it have finished. Without it a call's begin could be stamped
// before the thread's previous call ended, and posts of two threads swap order (the merge
// pairs messages in posting order).
inline std::uint64_t read_tsc() noexcept {
  _mm_lfence();
  return __rdtsc();
}

}  // namespace rocprof::core
