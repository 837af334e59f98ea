// The profiler's side of rocprofiler-register: librocprofiler-register passes a runtime's API
// tables here when a tool is in the process. Every tool's rocprofiler_configure (each distinct
// one, found in any loaded object) is called once, at the first registration.
#include <dlfcn.h>
#include <link.h>

#include <cstdint>
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
using Configure = void* (*)(std::uint32_t, const char*, std::uint32_t, ClientId*);

// The version of the profiler interface we offer tools (rocprofiler-sdk 1.0.0's number).
constexpr std::uint32_t kInterfaceVersion = 10000;

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
  std::uint32_t priority = 0;
  for (const Configure configure : found) {
    if (!called.insert(configure).second) continue;  // the same tool seen through two objects
    ClientId id{"rocprof-mpi", priority};
    configure(kInterfaceVersion, "rocprof-mpi", priority++, &id);
  }
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
