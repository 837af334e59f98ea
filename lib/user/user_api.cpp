// librocprof-sys-user: the rocprofiler-systems user API. Each call is forwarded through a
// process-wide callback table; without a profiler the table is empty and calls return
// ROCPROFSYS_USER_ERROR_NO_BINDING. A profiler in the process (rocprof-mpi's recorder) is
// found on first use and gives the initial table.
#define ROCPROFSYS_USER_SOURCE 1
#include <dlfcn.h>
#include <rocprofiler-systems/user.h>

#include <array>
#include <atomic>
#include <deque>
#include <mutex>

namespace {

// Tables are published whole and never freed, so a call reads the current one without a
// lock while another thread configures (configuring is rare).
std::mutex configure_mutex;
std::deque<rocprofsys_user_callbacks_t>& tables() {
  static std::deque<rocprofsys_user_callbacks_t> all;
  return all;
}
std::atomic<const rocprofsys_user_callbacks_t*> current{nullptr};

void publish(const rocprofsys_user_callbacks_t& table) {
  current.store(&tables().emplace_back(table), std::memory_order_release);
}

// The profiler's entry point: fills the table it wants the calls forwarded to; 0 on success.
using BindProfiler = int (*)(rocprofsys_user_callbacks_t*);
constexpr const char* kProfilerEntry = "rocprof_mpi_user_api_callbacks";

const rocprofsys_user_callbacks_t& table() {
  static std::once_flag bound;
  std::call_once(bound, [] {
    const std::lock_guard lock(configure_mutex);
    rocprofsys_user_callbacks_t initial{};
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): dlsym's contract
    const auto bind = reinterpret_cast<BindProfiler>(dlsym(RTLD_DEFAULT, kProfilerEntry));
    if (bind != nullptr && bind(&initial) != 0) initial = rocprofsys_user_callbacks_t{};
    publish(initial);
  });
  return *current.load(std::memory_order_acquire);
}

template <typename Function, typename... Args>
int forward(Function rocprofsys_user_callbacks_t::*entry, Args... args) {
  const Function function = table().*entry;
  return function == nullptr ? ROCPROFSYS_USER_ERROR_NO_BINDING : function(args...);
}

template <typename Function>
Function combine(Function current_entry, Function given, rocprofsys_user_configure_mode_t mode) {
  switch (mode) {
    case ROCPROFSYS_USER_UNION_CONFIG:
      return given != nullptr ? given : current_entry;
    case ROCPROFSYS_USER_REPLACE_CONFIG:
      return given;
    default:  // intersect
      return given != nullptr && current_entry != nullptr ? given : nullptr;
  }
}

}  // namespace

extern "C" {

int rocprofsys_user_start_trace(void) { return forward(&rocprofsys_user_callbacks_t::start_trace); }
int rocprofsys_user_stop_trace(void) { return forward(&rocprofsys_user_callbacks_t::stop_trace); }
int rocprofsys_user_start_thread_trace(void) {
  return forward(&rocprofsys_user_callbacks_t::start_thread_trace);
}
int rocprofsys_user_stop_thread_trace(void) {
  return forward(&rocprofsys_user_callbacks_t::stop_thread_trace);
}
int rocprofsys_user_push_region(const char* name) {
  return forward(&rocprofsys_user_callbacks_t::push_region, name);
}
int rocprofsys_user_pop_region(const char* name) {
  return forward(&rocprofsys_user_callbacks_t::pop_region, name);
}
int rocprofsys_user_progress(const char* name) {
  return forward(&rocprofsys_user_callbacks_t::progress, name);
}
int rocprofsys_user_push_annotated_region(const char* name, rocprofsys_annotation_t* annotations,
                                          size_t count) {
  return forward(&rocprofsys_user_callbacks_t::push_annotated_region, name, annotations, count);
}
int rocprofsys_user_pop_annotated_region(const char* name, rocprofsys_annotation_t* annotations,
                                         size_t count) {
  return forward(&rocprofsys_user_callbacks_t::pop_annotated_region, name, annotations, count);
}
int rocprofsys_user_annotated_progress(const char* name, rocprofsys_annotation_t* annotations,
                                       size_t count) {
  return forward(&rocprofsys_user_callbacks_t::annotated_progress, name, annotations, count);
}

int rocprofsys_user_configure(rocprofsys_user_configure_mode_t mode,
                              rocprofsys_user_callbacks_t callbacks,
                              rocprofsys_user_callbacks_t* previous) {
  if (mode < ROCPROFSYS_USER_UNION_CONFIG || mode >= ROCPROFSYS_USER_CONFIGURE_MODE_LAST)
    return ROCPROFSYS_USER_ERROR_BAD_VALUE;
  (void)table();  // the profiler's table first, if there is one: configuring builds on it
  const std::lock_guard lock(configure_mutex);
  const rocprofsys_user_callbacks_t& now = *current.load(std::memory_order_acquire);
  rocprofsys_user_callbacks_t next = now;
  next.start_trace = combine(now.start_trace, callbacks.start_trace, mode);
  next.stop_trace = combine(now.stop_trace, callbacks.stop_trace, mode);
  next.start_thread_trace = combine(now.start_thread_trace, callbacks.start_thread_trace, mode);
  next.stop_thread_trace = combine(now.stop_thread_trace, callbacks.stop_thread_trace, mode);
  next.push_region = combine(now.push_region, callbacks.push_region, mode);
  next.pop_region = combine(now.pop_region, callbacks.pop_region, mode);
  next.progress = combine(now.progress, callbacks.progress, mode);
  next.push_annotated_region =
      combine(now.push_annotated_region, callbacks.push_annotated_region, mode);
  next.pop_annotated_region =
      combine(now.pop_annotated_region, callbacks.pop_annotated_region, mode);
  next.annotated_progress = combine(now.annotated_progress, callbacks.annotated_progress, mode);
  if (previous != nullptr) *previous = now;
  publish(next);
  return ROCPROFSYS_USER_SUCCESS;
}

int rocprofsys_user_get_callbacks(rocprofsys_user_callbacks_t* callbacks) {
  if (callbacks == nullptr) return ROCPROFSYS_USER_ERROR_BAD_VALUE;
  *callbacks = table();
  return ROCPROFSYS_USER_SUCCESS;
}

const char* rocprofsys_user_error_string(int error) {
  static constexpr std::array<const char*, ROCPROFSYS_USER_ERROR_LAST> kMessages = {
      "Success",
      "Function pointer not assigned (no profiler bound to the user API)",
      "Invalid value",
      "Invalid user binding category",
      "Internal error in the profiler",
  };
  if (error < 0 || error >= ROCPROFSYS_USER_ERROR_LAST) return "Unknown error";
  return kMessages[static_cast<std::size_t>(error)];
}

}  // extern "C"
