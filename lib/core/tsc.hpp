// The CPU's time-stamp counter: a cheaper timestamp than clock_gettime for the hottest
// recording paths (MPI calls). Ticks are not nanoseconds: the recorder converts them to
// CLOCK_BOOTTIME nanoseconds before they reach a file (lib/recorder/tick_clock.hpp).
#pragma once

#include <x86intrin.h>

#include <cstdint>

namespace rocprof::core {

// Ordered as clock_gettime's own read is: the fence keeps the counter from being read before
// the instructions ahead of it have finished. Without it a call's begin could be stamped
// before the thread's previous record, or its end before a record made inside the call, and
// a thread's records would no longer nest.
inline std::uint64_t read_tsc() noexcept {
  _mm_lfence();
  return __rdtsc();
}

}  // namespace rocprof::core
