// The CPU's time-stamp counter: a cheaper timestamp than clock_gettime for the hottest
// recording paths (MPI calls). Ticks are not nanoseconds: the recorder converts them to
// CLOCK_BOOTTIME nanoseconds before they reach a file (lib/recorder/tick_clock.hpp).
#pragma once

#include <x86intrin.h>

#include <cstdint>

namespace rocprof::core {

inline std::uint64_t read_tsc() noexcept { return __rdtsc(); }

}  // namespace rocprof::core
