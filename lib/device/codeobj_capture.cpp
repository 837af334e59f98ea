// rocprofiler_codeobj_capture_*: records of the GPU code objects a process loaded, refreshed
// from the HSA runtime's loader extension at start, at each get while started, and at stop.
// A code object seen for the first time starts at that moment; one that is gone ends there.
#include <rocprofiler/v2/rocprofiler.h>

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "lib/core/clock.hpp"
#include "lib/runtime/hsa/hsa_code_objects.hpp"

namespace rocprof::device {
namespace {

using runtime::hsa::code_object_bytes;
using runtime::hsa::loaded_code_objects;
using runtime::hsa::LoadedCodeObject;

struct Captured {
  std::string uri;
  std::uint64_t base = 0;
  std::vector<char> bytes;
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
};

struct Record {
  rocprofiler_codeobj_capture_mode_t mode;
  std::uint64_t userdata;
  bool started = false;
  std::vector<Captured> captured;
  std::vector<rocprofiler_intercepted_codeobj_t> handed_out;  // what the last get returned

  bool keeps_bytes(const LoadedCodeObject& object) const {
    return mode == ROCPROFILER_CAPTURE_COPY_FILE_AND_MEMORY ||
           (mode == ROCPROFILER_CAPTURE_COPY_MEMORY && object.from_memory);
  }

  // Adds what is loaded and not captured yet; ends what was captured and is gone.
  void refresh() {
    const std::uint64_t now = core::now_ns();
    const std::vector<LoadedCodeObject> loaded = loaded_code_objects();
    for (Captured& known : captured) {
      if (known.end_ns != 0) continue;
      bool still = false;
      for (const LoadedCodeObject& object : loaded)
        still = still || (object.uri == known.uri && object.load_base == known.base);
      if (!still) known.end_ns = now;
    }
    for (const LoadedCodeObject& object : loaded) {
      bool seen = false;
      for (const Captured& known : captured)
        seen = seen ||
               (known.end_ns == 0 && known.uri == object.uri && known.base == object.load_base);
      if (seen) continue;
      Captured fresh{object.uri, object.load_base, {}, now, 0};
      if (keeps_bytes(object)) fresh.bytes = code_object_bytes(object);
      captured.push_back(std::move(fresh));
    }
  }
};

struct Records {
  std::mutex mutex;
  std::uint64_t next = 1;
  std::map<std::uint64_t, Record> records;
};

Records& records() {
  static auto* instance = new Records;  // records may be used from destructors at exit
  return *instance;
}

bool valid_mode(rocprofiler_codeobj_capture_mode_t mode) {
  return mode == ROCPROFILER_CAPTURE_SYMBOLS_ONLY || mode == ROCPROFILER_CAPTURE_COPY_MEMORY ||
         mode == ROCPROFILER_CAPTURE_COPY_FILE_AND_MEMORY;
}

// Runs `action` on record `id` under the lock; ..._INVALID_ARGUMENTS for an unknown one.
template <typename Action>
rocprofiler_status_t with_record(rocprofiler_record_id_t id, Action&& action) {
  Records& all = records();
  try {
    const std::lock_guard lock(all.mutex);
    const auto found = all.records.find(id.handle);
    if (found == all.records.end()) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENTS;
    return action(found->second, all);
  } catch (...) {
    return ROCPROFILER_STATUS_ERROR;
  }
}

}  // namespace
}  // namespace rocprof::device

using rocprof::device::Record;
using rocprof::device::Records;

extern "C" {

ROCPROFILER_EXPORT rocprofiler_status_t rocprofiler_codeobj_capture_create(
    rocprofiler_record_id_t* id, rocprofiler_codeobj_capture_mode_t mode, uint64_t userdata) {
  if (id == nullptr || !rocprof::device::valid_mode(mode))
    return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENTS;
  Records& all = rocprof::device::records();
  try {
    const std::lock_guard lock(all.mutex);
    id->handle = all.next++;
    all.records.emplace(id->handle, Record{mode, userdata, false, {}, {}});
    return ROCPROFILER_STATUS_SUCCESS;
  } catch (...) {
    return ROCPROFILER_STATUS_ERROR;
  }
}

ROCPROFILER_EXPORT rocprofiler_status_t rocprofiler_codeobj_capture_get(
    rocprofiler_record_id_t id, rocprofiler_codeobj_symbols_t* capture) {
  if (capture == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENTS;
  return rocprof::device::with_record(id, [capture](Record& record, Records&) {
    if (record.started) record.refresh();
    record.handed_out.clear();
    for (const auto& known : record.captured)
      record.handed_out.push_back({known.uri.c_str(),
                                   known.base,
                                   known.bytes.empty() ? nullptr : known.bytes.data(),
                                   known.bytes.size(),
                                   {known.start_ns},
                                   {known.end_ns}});
    capture->symbols = record.handed_out.data();
    capture->count = record.handed_out.size();
    capture->userdata = record.userdata;
    return ROCPROFILER_STATUS_SUCCESS;
  });
}

ROCPROFILER_EXPORT rocprofiler_status_t
rocprofiler_codeobj_capture_free(rocprofiler_record_id_t id) {
  return rocprof::device::with_record(id, [id](Record&, Records& all) {
    all.records.erase(id.handle);
    return ROCPROFILER_STATUS_SUCCESS;
  });
}

ROCPROFILER_EXPORT rocprofiler_status_t
rocprofiler_codeobj_capture_start(rocprofiler_record_id_t id) {
  return rocprof::device::with_record(id, [](Record& record, Records&) {
    record.refresh();
    record.started = true;
    return ROCPROFILER_STATUS_SUCCESS;
  });
}

ROCPROFILER_EXPORT rocprofiler_status_t
rocprofiler_codeobj_capture_stop(rocprofiler_record_id_t id) {
  return rocprof::device::with_record(id, [](Record& record, Records&) {
    record.refresh();
    record.started = false;
    return ROCPROFILER_STATUS_SUCCESS;
  });
}

}  // extern "C"
