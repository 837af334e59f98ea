#include "lib/runtime/hip/hip_tracer.hpp"

#include <dlfcn.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <new>

#include <roctracer/roctracer_hip.h>

#include "lib/core/api_dispatch.hpp"
#include "lib/core/record_activity.hpp"
#include "lib/runtime/hip/hip_kernel_ref.hpp"

namespace rocprof::runtime::hip {
namespace {

// HIP 5.2's tracer interface, found in the process's libamdhip64.
struct HipTracerInterface {
  int (*register_api_callback)(std::uint32_t id, void* fun, void* arg) = nullptr;
  int (*register_activity_callback)(std::uint32_t id, void* fun, void* arg) = nullptr;
  void (*init_activity_callback)(void* id_callback, void* op_callback, void* arg) = nullptr;
  bool (*enable_activity_callback)(std::uint32_t op, bool enable) = nullptr;
};

template <typename Function>
bool bind(void* library, const char* name, Function& function) {
  function = reinterpret_cast<Function>(dlsym(library, name));
  return function != nullptr;
}

// ---- API calls ----

// A HIP API call in progress on this thread: the callback data HIP fills (handed to HIP by
// the activity callback at the call's start), what the core keeps between enter and exit,
// and the kernel it launches.
// hip_api_data_t has no default constructor (its arguments hold dim3s): kept in a union.
union CallData {
  hip_api_data_t hip;
  CallData() {}  // NOLINT(modernize-use-equals-default): must not construct `hip`
};
struct Frame {
  CallData data;
  core::ApiCallScope scope;
  const char* kernel;
};
// Deeper nesting than this (HIP calling HIP) goes untraced rather than allocating.
constexpr int kMaxDepth = 16;
struct Frames {
  Frame frame[kMaxDepth];
  int depth = 0;
};
// Allocated at a thread's first HIP call: the library's static TLS must stay small, since it
// may be loaded after the program started (as an HSA tool, by rocprofiler-register).
thread_local Frames* tl_frames = nullptr;

Frames* this_thread_frames() noexcept {
  if (tl_frames == nullptr) tl_frames = new (std::nothrow) Frames;  // NOLINT: lives with the thread
  return tl_frames;
}

// The activity callback's argument at a call's end (HIP passes none at its start).
int g_end_marker = 0;

// HIP's activity callback: at the start of a call, the callback data HIP fills for it; at
// its end (after the API callback's exit), the frame is done.
void* on_call_data(std::uint32_t /*cid*/, activity_record_t* /*record*/, const void* /*data*/,
                   void* arg) {
  Frames* thread_frames = this_thread_frames();
  if (thread_frames == nullptr) return nullptr;
  Frames& frames = *thread_frames;
  if (arg == &g_end_marker) {
    if (frames.depth > 0) --frames.depth;
    return nullptr;
  }
  if (!core::tracing_running() || frames.depth == kMaxDepth) return nullptr;
  Frame& frame = frames.frame[frames.depth++];
  std::memset(static_cast<void*>(&frame.data.hip), 0, sizeof frame.data.hip);
  frame.scope = core::ApiCallScope{};
  frame.kernel = nullptr;
  return &frame.data.hip;
}

bool dispatches_recorded() noexcept {
  return core::activity_route(ACTIVITY_DOMAIN_HIP_OPS, HIP_OP_ID_DISPATCH) != nullptr;
}

// HIP's API callback, at enter (arguments filled) and at exit (result known).
void on_call(std::uint32_t /*domain*/, std::uint32_t cid, const void* data, void* /*arg*/) {
  if (tl_frames == nullptr || tl_frames->depth == 0) return;
  Frames& frames = *tl_frames;
  Frame& frame = frames.frame[frames.depth - 1];
  hip_api_data_t& call = frame.data.hip;
  if (data != &call) return;  // not a call this backend handed data to
  if (call.phase == ACTIVITY_API_PHASE_ENTER) {
    // The kernel's name now, before HIP makes the dispatch (and outside its locks).
    if (dispatches_recorded()) frame.kernel = kernel_name(launched_kernel(cid, call));
    frame.scope = core::enter_api_call(ACTIVITY_DOMAIN_HIP_API, cid, call);
  } else {
    core::exit_api_call(frame.scope, call);
  }
}

// ---- device work ----

// HIP numbers its operations itself; the id callback, on the calling thread as an
// operation is made, ties that number to the API call. Kept in a ring (no lock, no
// allocation): an operation still running 65536 operations later loses its call.
struct IssuedBy {
  std::atomic<std::uint64_t> operation{~std::uint64_t{0}};
  std::uint64_t correlation_id = 0;
  const char* kernel = nullptr;
};
constexpr std::uint64_t kRingSize = std::uint64_t{1} << 16;
IssuedBy g_issued[kRingSize];

void on_operation_made(activity_correlation_id_t operation) {
  IssuedBy& slot = g_issued[operation & (kRingSize - 1)];
  const Frames* frames = tl_frames;
  const Frame* call =
      frames != nullptr && frames->depth > 0 ? &frames->frame[frames->depth - 1] : nullptr;
  slot.correlation_id = call != nullptr && call->scope.traced ? call->scope.correlation_id : 0;
  slot.kernel = call != nullptr ? call->kernel : nullptr;
  slot.operation.store(operation, std::memory_order_release);
}

// The op callback, on HIP's thread when the operation completed: its record, timed by HIP on
// the host clock.
void on_operation_done(std::uint32_t op, void* opaque, void* /*arg*/) {
  const auto& done = *static_cast<const activity_record_t*>(opaque);
  const IssuedBy& slot = g_issued[done.correlation_id & (kRingSize - 1)];
  const bool known = slot.operation.load(std::memory_order_acquire) == done.correlation_id;
  const std::uint64_t correlation_id = known ? slot.correlation_id : 0;
  const char* kernel = known && op == HIP_OP_ID_DISPATCH ? slot.kernel : nullptr;
  core::ThreadState& state = core::this_thread_state();
  core::record_activity(state, ACTIVITY_DOMAIN_HIP_OPS, op, kernel,
                        [&](activity_record_t& record, auto&) {
                          record.kind = done.kind;
                          record.correlation_id = correlation_id;
                          record.begin_ns = done.begin_ns;
                          record.end_ns = done.end_ns;
                          record.device_id = done.device_id;
                          record.queue_id = done.queue_id;
                          if (op != HIP_OP_ID_DISPATCH) record.bytes = done.bytes;
                        });
}

}  // namespace

bool start_hip_tracing(std::string& why) {
  static std::mutex mutex;
  static bool attached = false;
  const std::lock_guard lock(mutex);
  if (attached) return true;
  // Only a runtime the process loaded itself: a tracer must not bring HIP into a program.
  void* library = dlopen("libamdhip64.so.5", RTLD_NOW | RTLD_NOLOAD);
  if (library == nullptr) library = dlopen("libamdhip64.so", RTLD_NOW | RTLD_NOLOAD);
  HipTracerInterface hip;
  if (library == nullptr ||
      !(bind(library, "hipRegisterApiCallback", hip.register_api_callback) &&
        bind(library, "hipRegisterActivityCallback", hip.register_activity_callback) &&
        bind(library, "hipInitActivityCallback", hip.init_activity_callback) &&
        bind(library, "hipEnableActivityCallback", hip.enable_activity_callback))) {
    why = library == nullptr ? "no HIP runtime in this process"
                             : "the process's HIP runtime has no HIP 5.2 tracer interface";
    return true;
  }
  for (std::uint32_t id = HIP_API_ID_FIRST; id <= HIP_API_ID_LAST; ++id) {
    hip.register_activity_callback(id, reinterpret_cast<void*>(&on_call_data), &g_end_marker);
    hip.register_api_callback(id, reinterpret_cast<void*>(&on_call), nullptr);
  }
  hip.init_activity_callback(reinterpret_cast<void*>(&on_operation_made),
                             reinterpret_cast<void*>(&on_operation_done), nullptr);
  for (std::uint32_t op = 0; op < HIP_OP_ID_NUMBER; ++op) hip.enable_activity_callback(op, true);
  attached = true;
  return true;
}

}  // namespace rocprof::runtime::hip
