// The profiler's side of rocprofiler-register: librocprofiler-register passes a runtime's API
// tables here when a tool is in the process. Every tool's rocprofiler_configure (each distinct
// one, found in any loaded object) is called once, at the first registration; a tool that
// returns a configure result has its initialize called next and its finalize at process exit
// (or when it asks for it through the finalize function it was given).
#include <dlfcn.h>
#include <link.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <set>
#include <vector>

#include <rocprof-mpi/api_tables.h>

namespace {

// rocprofiler-sdk's client id, as rocprofiler_configure receives it.
struct ClientId {
  const char* name;
  std::uint32_t handle;
};
using ClientFinalize = void (*)(ClientId);
using ToolInitialize = int (*)(ClientFinalize, void*);
using ToolFinalize = void (*)(void*);
// rocprofiler-sdk's rocprofiler_tool_configure_result_t: its size, then the tool's entry points.
struct ConfigureResult {
  std::size_t size;
  ToolInitialize initialize;
  ToolFinalize finalize;
  void* tool_data;
};
using Configure = ConfigureResult* (*)(std::uint32_t, const char*, std::uint32_t, ClientId*);

// The version of the profiler interface we offer tools (rocprofiler-sdk 1.0.0's number).
constexpr std::uint32_t kInterfaceVersion = 10000;
// Tools served in one process; more are not configured (rocprofiler-sdk has a similar cap).
constexpr std::size_t kMaxTools = 64;

struct Tool {
  ClientId id;  // lives as long as the process: tools may keep the pointer they were given
  ToolFinalize finalize = nullptr;
  void* tool_data = nullptr;
  bool active = false;
};
std::array<Tool, kMaxTools> g_tools{};
std::size_t g_tool_count = 0;
std::mutex g_tools_mutex;

void finalize_tool(Tool& tool) {
  ToolFinalize finalize = nullptr;
  void* data = nullptr;
  {
    const std::lock_guard lock(g_tools_mutex);
    if (!tool.active) return;
    tool.active = false;
    finalize = tool.finalize;
    data = tool.tool_data;
  }
  if (finalize != nullptr) finalize(data);
}

// Handed to each tool's initialize: the tool may finalize itself early.
void finalize_client(ClientId id) {
  if (id.handle < g_tool_count) finalize_tool(g_tools.at(id.handle));
}

// Process exit: the tools still active are finalized, the last configured first.
void finalize_all_tools() {
  for (std::size_t i = g_tool_count; i-- > 0;) finalize_tool(g_tools.at(i));
}

int collect(dl_phdr_info* info, size_t /*size*/, void* data) {
  auto& found = *static_cast<std::vector<Configure>*>(data);
  const char* name =
      info->dlpi_name != nullptr && *info->dlpi_name != '\0' ? info->dlpi_name : nullptr;
  void* handle = dlopen(name, RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) return 0;
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): dlsym's contract
  if (auto* configure = reinterpret_cast<Configure>(dlsym(handle, "rocprofiler_configure")))
    found.push_back(configure);
  dlclose(handle);
  return 0;
}

void configure_tools() {
  std::vector<Configure> found;
  dl_iterate_phdr(&collect, &found);
  std::set<Configure> called;
  std::vector<std::pair<std::size_t, ConfigureResult*>> results;
  for (const Configure configure : found) {
    if (g_tool_count == kMaxTools) break;
    if (!called.insert(configure).second) continue;  // the same tool seen through two objects
    const auto priority = static_cast<std::uint32_t>(g_tool_count);
    Tool& tool = g_tools.at(g_tool_count++);
    tool.id = ClientId{"rocprof-mpi", priority};
    ConfigureResult* result = configure(kInterfaceVersion, "rocprof-mpi", priority, &tool.id);
    // A result too small to hold the entry points is treated as none.
    if (result != nullptr && result->size >= offsetof(ConfigureResult, tool_data) + sizeof(void*))
      results.emplace_back(priority, result);
  }
  // Every tool is configured before any is initialized, as rocprofiler-sdk does.
  for (const auto& [index, result] : results) {
    Tool& tool = g_tools.at(index);
    {
      const std::lock_guard lock(g_tools_mutex);
      tool.finalize = result->finalize;
      tool.tool_data = result->tool_data;
      tool.active = true;
    }
    // A tool whose initialize fails is dropped without being finalized.
    if (result->initialize != nullptr &&
        result->initialize(&finalize_client, result->tool_data) != 0) {
      const std::lock_guard lock(g_tools_mutex);
      tool.active = false;
    }
  }
  if (!results.empty()) std::atexit(&finalize_all_tools);
}

}  // namespace

// Called by librocprofiler-register with a runtime's tables: the tools are configured first
// (so the domains they enable are seen from the runtime's first call), then the tables are
// wrapped for the roctracer domains; 0 on success.
extern "C" __attribute__((visibility("default"))) int rocprofiler_set_api_table(
    const char* name, std::uint64_t /*version*/, std::uint64_t /*instance*/, void** tables,
    std::uint64_t count) {
  static std::once_flag configured;
  std::call_once(configured, configure_tools);
  return rocprof_mpi_intercept_api_table(name, tables, count);
}
