#include "lib/runtime/cuda/cupti_library.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <vector>

#include <fmt/format.h>

namespace rocprof::runtime::cuda {
namespace {

void* open_cupti(std::string& tried) {
  std::vector<std::string> candidates;
  if (const char* chosen =
          std::getenv("ROCPROF_MPI_CUPTI_LIBRARY"))  // NOLINT(concurrency-mt-unsafe)
    candidates.emplace_back(chosen);
  else {
    candidates.emplace_back("libcupti.so.13");
    if (const char* home = std::getenv("CUDA_HOME"))  // NOLINT(concurrency-mt-unsafe)
      candidates.push_back(std::string(home) + "/lib64/libcupti.so.13");
    candidates.emplace_back("/usr/local/cuda/lib64/libcupti.so.13");
    candidates.emplace_back("/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13");
  }
  for (const std::string& candidate : candidates) {
    if (void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
    tried += (tried.empty() ? "" : ", ") + candidate;
  }
  return nullptr;
}

template <typename Function>
bool resolve(void* handle, const char* name, Function& function, std::string& missing) {
  function = reinterpret_cast<Function>(dlsym(handle, name));
  if (function == nullptr) missing += (missing.empty() ? "" : ", ") + std::string(name);
  return function != nullptr;
}

}  // namespace

std::string CuptiLibrary::describe(CUptiResult result) const {
  const char* text = nullptr;
  if (result_string != nullptr && result_string(result, &text) == CUPTI_SUCCESS && text != nullptr)
    return text;
  return fmt::format("CUPTI error {}", static_cast<int>(result));
}

const CuptiLibrary* load_cupti(std::string& error) {
  static CuptiLibrary library;
  static std::string load_error;
  static bool loaded = false;
  static std::once_flag once;
  std::call_once(once, [] {
    std::string tried;
    void* handle = open_cupti(tried);
    if (handle == nullptr) {
      load_error = fmt::format("cannot load CUPTI (tried {})", tried);
      return;
    }
    std::string missing;
    resolve(handle, "cuptiSubscribe", library.subscribe, missing);
    resolve(handle, "cuptiUnsubscribe", library.unsubscribe, missing);
    resolve(handle, "cuptiEnableDomain", library.enable_domain, missing);
    resolve(handle, "cuptiEnableCallback", library.enable_callback, missing);
    resolve(handle, "cuptiGetCallbackName", library.callback_name, missing);
    resolve(handle, "cuptiGetResultString", library.result_string, missing);
    resolve(handle, "cuptiActivityRegisterCallbacks", library.register_buffers, missing);
    resolve(handle, "cuptiActivityRegisterTimestampCallback", library.register_timestamp, missing);
    resolve(handle, "cuptiActivityEnable", library.enable_activity, missing);
    resolve(handle, "cuptiActivityFlushAll", library.flush_all, missing);
    resolve(handle, "cuptiActivityGetNextRecord", library.next_record, missing);
    resolve(handle, "cuptiActivityGetNumDroppedRecords", library.dropped_records, missing);
    if (!missing.empty()) {
      load_error = fmt::format("the CUPTI library lacks {} (CUDA 13 or later needed)", missing);
      return;
    }
    loaded = true;
  });
  if (!loaded) error = load_error;
  return loaded ? &library : nullptr;
}

}  // namespace rocprof::runtime::cuda
