#include "lib/core/tracer_state.hpp"

#include <mutex>

namespace rocprof::core {
namespace {
std::mutex g_ext_mutex;
roctracer_ext_properties_t g_ext_properties{};
}  // namespace

void set_tracing_running(bool running) {
  g_tracing_running.store(running, std::memory_order_relaxed);
  roctracer_ext_properties_t properties{};
  {
    const std::lock_guard lock(g_ext_mutex);
    properties = g_ext_properties;
  }
  // Outside the lock: the hooks may call back into the API.
  if (running && properties.start_cb != nullptr) properties.start_cb();
  if (!running && properties.stop_cb != nullptr) properties.stop_cb();
}

void set_ext_properties(const roctracer_ext_properties_t& properties) {
  const std::lock_guard lock(g_ext_mutex);
  g_ext_properties = properties;
}

}  // namespace rocprof::core
