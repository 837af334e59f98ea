// librocprofiler-register: ROCm runtimes hand their intercept API tables here. With a tool in
// the process, the tables go to the profiler library (rocprofiler_set_api_table, in rocprof-mpi's
// librocprof-mpi.so, already loaded or opened from next to this library); without one they are
// left alone at the cost of a symbol look-up.
#define ROCPROFILER_REGISTER_SOURCE 1
#include <dlfcn.h>
#include <rocprofiler-register/rocprofiler-register.h>

#include "lib/util/environment.hpp"

#include <array>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace util = rocprof::util;

constexpr std::uint64_t kMaxInstances = 8;
constexpr std::array<std::string_view, 9> kKnownLibraries = {
    "hsa", "hip", "hip_compiler", "roctx", "rccl", "rocdecode", "rocjpeg", "ompt", "hip_runtime"};

struct Registration {
  std::string name;
  std::uint32_t version;
  std::uint64_t tables;
};

std::mutex registry_mutex;
std::vector<Registration>& registrations() {
  static std::vector<Registration> all;
  return all;
}
std::map<std::string, std::uint64_t, std::less<>>& instances() {
  static std::map<std::string, std::uint64_t, std::less<>> counts;
  return counts;
}

thread_local bool registering = false;

bool disabled() { return !util::environment_flag("ROCPROFILER_REGISTER_ENABLED").value_or(true); }

// A tool: a visible rocprofiler_configure, or libraries named in ROCP_TOOL_LIBRARIES (opened
// here, globally, so that the profiler finds their rocprofiler_configure too).
bool tool_present() {
  if (dlsym(RTLD_DEFAULT, "rocprofiler_configure") != nullptr) return true;
  const char* listed = std::getenv("ROCP_TOOL_LIBRARIES");  // NOLINT(concurrency-mt-unsafe)
  if (listed == nullptr || *listed == '\0') return false;
  bool any = false;
  std::string_view rest(listed);
  while (!rest.empty()) {
    const std::size_t end = rest.find_first_of(":,");
    const std::string path(rest.substr(0, end));
    rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
    if (!path.empty() && dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL) != nullptr) any = true;
  }
  return any;
}

// The profiler's entry point: 0 when it took the tables.
using SetApiTable = int (*)(const char*, std::uint64_t, std::uint64_t, void**, std::uint64_t);

SetApiTable profiler() {
  // NOLINTBEGIN(cppcoreguidelines-pro-type-reinterpret-cast): dlsym's contract
  if (void* found = dlsym(RTLD_DEFAULT, "rocprofiler_set_api_table"))
    return reinterpret_cast<SetApiTable>(found);
  std::string path;
  if (const char* named = std::getenv("ROCPROFILER_REGISTER_LIBRARY"))  // NOLINT
    path = named;
  Dl_info self{};
  if (path.empty() && dladdr(reinterpret_cast<void*>(&profiler), &self) != 0 &&
      self.dli_fname != nullptr)
    path = (std::filesystem::path(self.dli_fname).parent_path() / "librocprof-mpi.so").string();
  void* library = path.empty() ? nullptr : dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (library == nullptr) return nullptr;
  return reinterpret_cast<SetApiTable>(dlsym(library, "rocprofiler_set_api_table"));
  // NOLINTEND(cppcoreguidelines-pro-type-reinterpret-cast)
}

// The import function must be the registering library's own
// rocprofiler_register_import_<name>.
bool import_matches(const char* name, rocprofiler_register_import_func_t import_func) {
  Dl_info info{};
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): an address to look up
  if (dladdr(reinterpret_cast<void*>(import_func), &info) == 0 || info.dli_sname == nullptr)
    return false;
  return std::string_view(info.dli_sname) == std::string("rocprofiler_register_import_") + name;
}

}  // namespace

extern "C" {

rocprofiler_register_error_code_t rocprofiler_register_library_api_table(
    const char* lib_name, rocprofiler_register_import_func_t import_func, uint32_t lib_version,
    void** api_tables, uint64_t api_table_length,
    rocprofiler_register_library_indentifier_t* register_id) {
  if (registering) return ROCP_REG_DEADLOCK;
  if (disabled()) return ROCP_REG_NO_TOOLS;
  if (api_table_length == 0) return ROCP_REG_BAD_API_TABLE_LENGTH;
  if (lib_name == nullptr) return ROCP_REG_UNSUPPORTED_API;
  std::size_t category = 0;
  while (category < kKnownLibraries.size() && kKnownLibraries[category] != lib_name) ++category;
  if (category == kKnownLibraries.size()) return ROCP_REG_UNSUPPORTED_API;
  if (import_func == nullptr || !import_matches(lib_name, import_func))
    return ROCP_REG_INVALID_API_ADDRESS;
  std::uint64_t instance = 0;
  {
    const std::lock_guard lock(registry_mutex);
    instance = instances()[lib_name]++;
    if (instance >= kMaxInstances) return ROCP_REG_EXCESS_API_INSTANCES;
    registrations().push_back({lib_name, lib_version, api_table_length});
  }
  register_id->handle = (std::uint64_t{category} << 32) | instance;
  registering = true;
  rocprofiler_register_error_code_t status = ROCP_REG_NO_TOOLS;
  if (tool_present()) {
    const SetApiTable set_api_table = profiler();
    status = set_api_table != nullptr && set_api_table(lib_name, lib_version, instance, api_tables,
                                                       api_table_length) == 0
                 ? ROCP_REG_SUCCESS
                 : ROCP_REG_ROCPROFILER_ERROR;
  }
  registering = false;
  return status;
}

const char* rocprofiler_register_error_string(rocprofiler_register_error_code_t code) {
  switch (code) {
    case ROCP_REG_SUCCESS:
      return "Success";
    case ROCP_REG_NO_TOOLS:
      return "No tools in the process: the API tables were not passed to a profiler";
    case ROCP_REG_DEADLOCK:
      return "Deadlock: the registration was re-entered on the same thread";
    case ROCP_REG_BAD_API_TABLE_LENGTH:
      return "Invalid API table length (no tables)";
    case ROCP_REG_UNSUPPORTED_API:
      return "Unsupported API (unknown library name)";
    case ROCP_REG_INVALID_API_ADDRESS:
      return "Invalid API address (the import function is not the library's)";
    case ROCP_REG_ROCPROFILER_ERROR:
      return "The profiler returned an error for the API tables";
    case ROCP_REG_EXCESS_API_INSTANCES:
      return "Too many instances of this API were registered";
    default:
      return "Unknown error";
  }
}

rocprofiler_register_error_code_t rocprofiler_register_iterate_registration_info(
    rocprofiler_register_registration_info_cb_t callback, void* data) {
  std::vector<Registration> copy;
  {
    const std::lock_guard lock(registry_mutex);
    copy = registrations();
  }
  for (const Registration& entry : copy) {
    rocprofiler_register_registration_info_t info{sizeof(info), entry.name.c_str(), entry.version,
                                                  entry.tables};
    if (callback(&info, data) != 0) break;
  }
  return ROCP_REG_SUCCESS;
}

}  // extern "C"
