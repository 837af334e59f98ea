// Process-wide tracing switch (roctracer_start / roctracer_stop).
#pragma once

#include <atomic>

#include <roctracer/roctracer_ext.h>

namespace rocprof::core {

inline std::atomic<bool> g_tracing_running{true};

// Relaxed: start/stop is a coarse switch; a call racing with it may or may not be traced.
inline bool tracing_running() noexcept { return g_tracing_running.load(std::memory_order_relaxed); }

void set_tracing_running(bool running);
void set_ext_properties(const roctracer_ext_properties_t& properties);

}  // namespace rocprof::core
