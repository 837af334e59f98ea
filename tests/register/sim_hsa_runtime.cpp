// A simulated HSA runtime (no GPU exists here): a few functions of the real HSA API behind the
// real API table of Debian's hsa_api_trace.h. Like the ROCm runtime, every public entry point
// calls through the table, and the first hsa_init hands the table to tools two ways: OnLoad of
// each library in HSA_TOOLS_LIB, then rocprofiler-register. Environment knobs for tests:
//   SIM_HSA_CORE_TABLE_BYTES  the core table's declared size (minor_id), to act as an older
//                             runtime whose table ends earlier
//   SIM_HSA_NO_REGISTER=1     skip rocprofiler-register (a runtime from before it)
#define AMD_INTERNAL_BUILD 1
#include <dlfcn.h>
#include <hsa/hsa_api_trace.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <rocprofiler-register/rocprofiler-register.h>

#include "tests/register/sim_hsa_runtime.h"

ROCPROFILER_REGISTER_DEFINE_IMPORT(hsa, ROCPROFILER_REGISTER_COMPUTE_VERSION_3(1, 7, 0))

namespace {

constexpr int kAgents = 2;
std::array<hsa_signal_value_t, 8> g_signals{};
bool g_initialised = false;

using OnLoadFn = bool (*)(HsaApiTable*, uint64_t, uint64_t, const char* const*);

HsaApiTableContainer& tables() {
  static HsaApiTableContainer container;
  return container;
}

void load_tools() {
  const char* listed = std::getenv("HSA_TOOLS_LIB");  // NOLINT(concurrency-mt-unsafe)
  if (listed == nullptr) return;
  std::string rest(listed);
  std::size_t start = 0;
  while (start < rest.size()) {
    std::size_t end = rest.find(' ', start);
    if (end == std::string::npos) end = rest.size();
    const std::string path = rest.substr(start, end - start);
    start = end + 1;
    if (path.empty()) continue;
    void* library = dlopen(path.c_str(), RTLD_NOW);
    auto on_load =
        library != nullptr ? reinterpret_cast<OnLoadFn>(dlsym(library, "OnLoad")) : nullptr;
    if (on_load == nullptr || !on_load(&tables().root, 1, 0, nullptr))
      std::fprintf(stderr, "sim-hsa: tool %s not loaded\n", path.c_str());
  }
}

void register_tables() {
  const char* skip = std::getenv("SIM_HSA_NO_REGISTER");  // NOLINT(concurrency-mt-unsafe)
  if (skip != nullptr && std::strcmp(skip, "1") == 0) return;
  void* api_tables[] = {&tables().root};
  rocprofiler_register_library_indentifier_t id{};
  rocprofiler_register_library_api_table("hsa", &ROCPROFILER_REGISTER_IMPORT_FUNC(hsa),
                                         ROCPROFILER_REGISTER_COMPUTE_VERSION_3(1, 7, 0),
                                         api_tables, 1, &id);
}

hsa_status_t sim_init() {
  if (!g_initialised) {
    g_initialised = true;
    load_tools();
    register_tables();
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t sim_shut_down() {
  return g_initialised ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR_NOT_INITIALIZED;
}

hsa_status_t sim_system_get_info(hsa_system_info_t attribute, void* value) {
  if (attribute != HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *static_cast<uint64_t*>(value) = 1000000000;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t sim_iterate_agents(hsa_status_t (*callback)(hsa_agent_t, void*), void* data) {
  for (int i = 1; i <= kAgents; ++i) {
    const hsa_status_t status = callback(hsa_agent_t{static_cast<uint64_t>(i)}, data);
    if (status != HSA_STATUS_SUCCESS) return status;
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t sim_agent_get_info(hsa_agent_t agent, hsa_agent_info_t attribute, void* value) {
  if (attribute != HSA_AGENT_INFO_NAME) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  std::snprintf(static_cast<char*>(value), 64, "sim-gfx90a-%llu",
                static_cast<unsigned long long>(agent.handle));
  return HSA_STATUS_SUCCESS;
}

void sim_signal_store_relaxed(hsa_signal_t signal, hsa_signal_value_t value) {
  g_signals.at(signal.handle) = value;
}

hsa_signal_value_t sim_signal_load_relaxed(hsa_signal_t signal) {
  return g_signals.at(signal.handle);
}

hsa_status_t sim_copy_rect(const hsa_pitched_ptr_t* /*dst*/, const hsa_dim3_t* /*dst_offset*/,
                           const hsa_pitched_ptr_t* /*src*/, const hsa_dim3_t* /*src_offset*/,
                           const hsa_dim3_t* range, hsa_agent_t /*copy_agent*/,
                           hsa_amd_copy_direction_t /*dir*/, uint32_t /*num_dep_signals*/,
                           const hsa_signal_t* /*dep_signals*/, hsa_signal_t completion_signal) {
  if (range == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  g_signals.at(completion_signal.handle) = 0;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t sim_image_get_capability(hsa_agent_t /*agent*/, hsa_ext_image_geometry_t /*geometry*/,
                                      const hsa_ext_image_format_t* /*format*/,
                                      uint32_t* capability_mask) {
  *capability_mask = 0;
  return HSA_STATUS_SUCCESS;
}

// The runtime's own table, filled where it implements a function; the rest stays empty.
struct OwnEntries {
  OwnEntries() {
    HsaApiTableContainer& t = tables();
    t.core.hsa_init_fn = &sim_init;
    t.core.hsa_shut_down_fn = &sim_shut_down;
    t.core.hsa_system_get_info_fn = &sim_system_get_info;
    t.core.hsa_iterate_agents_fn = &sim_iterate_agents;
    t.core.hsa_agent_get_info_fn = &sim_agent_get_info;
    t.core.hsa_signal_store_relaxed_fn = &sim_signal_store_relaxed;
    t.core.hsa_signal_load_relaxed_fn = &sim_signal_load_relaxed;
    t.amd_ext.hsa_amd_memory_async_copy_rect_fn = &sim_copy_rect;
    t.image_ext.hsa_ext_image_get_capability_fn = &sim_image_get_capability;
    if (const char* bytes = std::getenv("SIM_HSA_CORE_TABLE_BYTES"))  // NOLINT
      t.core.version.minor_id = static_cast<uint32_t>(std::strtoul(bytes, nullptr, 10));
  }
} const g_own_entries;

}  // namespace

extern "C" {

int sim_hsa_wrapped_entries() {
  const HsaApiTableContainer& t = tables();
  return static_cast<int>(t.core.hsa_init_fn != &sim_init) +
         static_cast<int>(t.core.hsa_shut_down_fn != &sim_shut_down) +
         static_cast<int>(t.core.hsa_system_get_info_fn != &sim_system_get_info) +
         static_cast<int>(t.core.hsa_iterate_agents_fn != &sim_iterate_agents) +
         static_cast<int>(t.core.hsa_agent_get_info_fn != &sim_agent_get_info) +
         static_cast<int>(t.core.hsa_signal_store_relaxed_fn != &sim_signal_store_relaxed) +
         static_cast<int>(t.core.hsa_signal_load_relaxed_fn != &sim_signal_load_relaxed) +
         static_cast<int>(t.amd_ext.hsa_amd_memory_async_copy_rect_fn != &sim_copy_rect) +
         static_cast<int>(t.image_ext.hsa_ext_image_get_capability_fn != &sim_image_get_capability);
}

// The public API: every call goes through the table, where a tool may have put wrappers.
hsa_status_t hsa_init() { return tables().core.hsa_init_fn(); }
hsa_status_t hsa_shut_down() { return tables().core.hsa_shut_down_fn(); }
hsa_status_t hsa_system_get_info(hsa_system_info_t attribute, void* value) {
  return tables().core.hsa_system_get_info_fn(attribute, value);
}
hsa_status_t hsa_iterate_agents(hsa_status_t (*callback)(hsa_agent_t, void*), void* data) {
  return tables().core.hsa_iterate_agents_fn(callback, data);
}
hsa_status_t hsa_agent_get_info(hsa_agent_t agent, hsa_agent_info_t attribute, void* value) {
  return tables().core.hsa_agent_get_info_fn(agent, attribute, value);
}
void hsa_signal_store_relaxed(hsa_signal_t signal, hsa_signal_value_t value) {
  tables().core.hsa_signal_store_relaxed_fn(signal, value);
}
hsa_signal_value_t hsa_signal_load_relaxed(hsa_signal_t signal) {
  return tables().core.hsa_signal_load_relaxed_fn(signal);
}
hsa_status_t hsa_amd_memory_async_copy_rect(
    const hsa_pitched_ptr_t* dst, const hsa_dim3_t* dst_offset, const hsa_pitched_ptr_t* src,
    const hsa_dim3_t* src_offset, const hsa_dim3_t* range, hsa_agent_t copy_agent,
    hsa_amd_copy_direction_t dir, uint32_t num_dep_signals, const hsa_signal_t* dep_signals,
    hsa_signal_t completion_signal) {
  return tables().amd_ext.hsa_amd_memory_async_copy_rect_fn(dst, dst_offset, src, src_offset, range,
                                                            copy_agent, dir, num_dep_signals,
                                                            dep_signals, completion_signal);
}
hsa_status_t hsa_ext_image_get_capability(hsa_agent_t agent, hsa_ext_image_geometry_t geometry,
                                          const hsa_ext_image_format_t* format,
                                          uint32_t* capability_mask) {
  return tables().image_ext.hsa_ext_image_get_capability_fn(agent, geometry, format,
                                                            capability_mask);
}

}  // extern "C"
