// The recorder's side of the rocprofiler-systems user API: librocprof-sys-user finds
// rocprof_mpi_user_api_callbacks in the process and forwards the application's calls here.
// A user region is recorded as a pair of markers (region begin and end, nested per thread)
// and pushes an external correlation id while it is open, so that GPU work and API calls
// made inside it carry it. Annotations are recorded after their marker, with their values.
// Regions are recorded even while the application has tracing off.
#include <rocprof-mpi/recorder.h>
#include <rocprofiler-systems/categories.h>
#include <rocprofiler-systems/types.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <rocprof-mpi/pool_write.h>
#include <roctracer/roctracer.h>
#include <roctracer/roctracer_ext.h>

#include "lib/format/records.hpp"
#include "lib/recorder/private_write.hpp"
#include "lib/recorder/recorder.hpp"

namespace rocprof::recorder {
namespace {

using format::MarkerOp;
using format::MarkerRow;

// Bit 43 keeps region external ids apart from the MPI layer's (world rank above bit 44, a
// per-process sequence below bit 43).
using format::kRegionExternalBit;

std::atomic<std::uint64_t> next_id{1};

thread_local std::vector<std::uint64_t> open_regions;  // ids, innermost last

// The annotations of a marker, written just after it. Each value is read here (the program's
// pointers are valid only during the call).
void write_annotations(roctracer_pool_t* pool, std::uint64_t now, std::uint64_t id,
                       const rocprofsys_annotation* annotations, size_t count) {
  // Name and string value travel as one text; the buffer is reused, so the steady state
  // allocates nothing.
  thread_local std::string joined;
  for (size_t i = 0; i < count && annotations != nullptr; ++i) {
    const rocprofsys_annotation& annotation = annotations[i];
    using format::AnnotationType;
    const auto type = static_cast<AnnotationType>(annotation.type);
    if (annotation.name == nullptr || type <= AnnotationType::kNone ||
        type > AnnotationType::kUint16)
      continue;  // no name, or a type whose value cannot be read safely
    std::uint64_t value = 0;
    const char* text = annotation.name;
    const void* data = annotation.value;
    auto bits = [](double number) {
      std::uint64_t out = 0;
      std::memcpy(&out, &number, sizeof out);
      return out;
    };
    if (data != nullptr) {
      switch (type) {
        case AnnotationType::kString:
          joined.assign(annotation.name);
          joined += kAnnotationSeparator;
          joined += static_cast<const char*>(data);
          text = joined.c_str();
          break;
        case AnnotationType::kSize:
          value = *static_cast<const size_t*>(data);
          break;
        case AnnotationType::kInt64:
          value = static_cast<std::uint64_t>(*static_cast<const std::int64_t*>(data));
          break;
        case AnnotationType::kUint64:
          value = *static_cast<const std::uint64_t*>(data);
          break;
        case AnnotationType::kFloat64:
          value = bits(*static_cast<const double*>(data));
          break;
        case AnnotationType::kPointer:
          value = reinterpret_cast<std::uintptr_t>(data);
          break;
        case AnnotationType::kInt32:
          value = static_cast<std::uint64_t>(
              static_cast<std::int64_t>(*static_cast<const std::int32_t*>(data)));
          break;
        case AnnotationType::kUint32:
          value = *static_cast<const std::uint32_t*>(data);
          break;
        case AnnotationType::kFloat32:
          value = bits(*static_cast<const float*>(data));
          break;
        case AnnotationType::kInt16:
          value = static_cast<std::uint64_t>(
              static_cast<std::int64_t>(*static_cast<const std::int16_t*>(data)));
          break;
        case AnnotationType::kUint16:
          value = *static_cast<const std::uint16_t*>(data);
          break;
        default:
          break;
      }
    }
    write_private_into<format::AnnotationRow>(
        pool, kUserAnnotationDomain, text,
        [&](format::AnnotationRow& row) {
          row.timestamp_ns = now;
          row.marker_id = id;
          row.value = value;
          row.type = type;
        },
        nullptr);
  }
}

void write_marker(MarkerOp op, const char* name, std::uint64_t id, std::uint32_t level,
                  const rocprofsys_annotation* annotations = nullptr, size_t count = 0) {
  roctracer_pool_t* pool = recording_pool();
  if (pool == nullptr) return;
  std::uint64_t now = 0;
  roctracer_get_timestamp(&now);
  write_private_into<MarkerRow>(
      pool, kUserMarkerDomain, name,
      [&](MarkerRow& row) {
        row.timestamp_ns = now;
        row.id = id;
        row.level = level;
        row.op = op;
      },
      nullptr);
  write_annotations(pool, now, id, annotations, count);
}

int push_region(const char* name, const rocprofsys_annotation* annotations, size_t count) {
  if (name == nullptr) return ROCPROFSYS_USER_ERROR_BAD_VALUE;
  const std::uint64_t id = next_id.fetch_add(1, std::memory_order_relaxed);
  write_marker(MarkerOp::kRegionPush, name, id, static_cast<std::uint32_t>(open_regions.size()),
               annotations, count);
  roctracer_activity_push_external_correlation_id(kRegionExternalBit | id);
  open_regions.push_back(id);
  return ROCPROFSYS_USER_SUCCESS;
}

int pop_region(const char* /*name*/, const rocprofsys_annotation* annotations, size_t count) {
  if (open_regions.empty()) return ROCPROFSYS_USER_ERROR_BAD_VALUE;  // none open here
  const std::uint64_t id = open_regions.back();
  open_regions.pop_back();
  roctracer_activity_pop_external_correlation_id(nullptr);
  write_marker(MarkerOp::kRegionPop, nullptr, id, static_cast<std::uint32_t>(open_regions.size()),
               annotations, count);
  return ROCPROFSYS_USER_SUCCESS;
}

int progress(const char* name, const rocprofsys_annotation* annotations, size_t count) {
  if (name == nullptr) return ROCPROFSYS_USER_ERROR_BAD_VALUE;
  write_marker(MarkerOp::kMark, name, next_id.fetch_add(1, std::memory_order_relaxed), 0,
               annotations, count);
  return ROCPROFSYS_USER_SUCCESS;
}

int plain_push_region(const char* name) { return push_region(name, nullptr, 0); }
int plain_pop_region(const char* name) { return pop_region(name, nullptr, 0); }
int plain_progress(const char* name) { return progress(name, nullptr, 0); }

int push_annotated_region(const char* name, rocprofsys_annotation* annotations, size_t count) {
  return push_region(name, annotations, count);
}
int pop_annotated_region(const char* name, rocprofsys_annotation* annotations, size_t count) {
  return pop_region(name, annotations, count);
}
int annotated_progress(const char* name, rocprofsys_annotation* annotations, size_t count) {
  return progress(name, annotations, count);
}

int start_trace() {
  roctracer_start();
  return ROCPROFSYS_USER_SUCCESS;
}
int stop_trace() {
  roctracer_stop();
  return ROCPROFSYS_USER_SUCCESS;
}
int start_thread_trace() {
  rocprof_mpi_set_thread_tracing(1);
  return ROCPROFSYS_USER_SUCCESS;
}
int stop_thread_trace() {
  rocprof_mpi_set_thread_tracing(0);
  return ROCPROFSYS_USER_SUCCESS;
}

}  // namespace
}  // namespace rocprof::recorder

extern "C" int rocprof_mpi_user_api_callbacks(rocprofsys_user_callbacks_t* callbacks) {
  namespace r = rocprof::recorder;
  if (callbacks == nullptr || r::recording_pool() == nullptr) return -1;  // not recording
  *callbacks = rocprofsys_user_callbacks_t{};
  callbacks->start_trace = &r::start_trace;
  callbacks->stop_trace = &r::stop_trace;
  callbacks->start_thread_trace = &r::start_thread_trace;
  callbacks->stop_thread_trace = &r::stop_thread_trace;
  callbacks->push_region = &r::plain_push_region;
  callbacks->pop_region = &r::plain_pop_region;
  callbacks->progress = &r::plain_progress;
  callbacks->push_annotated_region = &r::push_annotated_region;
  callbacks->pop_annotated_region = &r::pop_annotated_region;
  callbacks->annotated_progress = &r::annotated_progress;
  return 0;
}
