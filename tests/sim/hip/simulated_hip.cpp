// A simulated HIP 5.2 runtime (libamdhip64.so.5) for the tests: no GPU exists here. It is
// built against Debian's HIP 5.2 headers and exports what Debian's library exports (the rest
// as stubs returning hipErrorNotSupported, tests/sim/gen_sim_exports.py). A few operations are real
// in what a tracer sees: memory allocation, copies (sync and async), memset, kernel launch with a
// configurable duration, streams and their synchronisation, kernel registration. They fire the
// tracer interface as HIP 5.2 does:
//   - API calls: the activity callback hands out the call's hip_api_data_t, HIP fills the
//     arguments, the API callback runs at enter and at exit, then the activity callback
//     again (hipRegisterApiCallback, hipRegisterActivityCallback);
//   - device work (HIP_OPS): the id callback runs on the calling thread as the command is
//     made, the op callback on the device's thread when it completed, with an activity
//     record timed on CLOCK_BOOTTIME, the runtime's host clock (hipInitActivityCallback,
//     hipEnableActivityCallback).
// Device memory is host memory; a device is a thread per stream executing its commands in
// order. SIM_HIP_KERNEL_US sets a kernel's duration (default 50 us), SIM_HIP_COPY_GBPS the
// copy bandwidth (default 10).
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_runtime_api.h>
// hip_prof_str.h needs the types above.
#include <hip/amd_detail/hip_prof_str.h>
#include <roctracer/ext/prof_protocol.h>
#include <time.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

// OpenCL command kinds, as HIP 5.2 (ROCclr) reports them in HIP_OPS records.
constexpr std::uint32_t kKernelExecution = 0x11F0;     // CL_COMMAND_NDRANGE_KERNEL
constexpr std::uint32_t kCopyDeviceToHost = 0x11F3;    // CL_COMMAND_READ_BUFFER
constexpr std::uint32_t kCopyHostToDevice = 0x11F4;    // CL_COMMAND_WRITE_BUFFER
constexpr std::uint32_t kCopyDeviceToDevice = 0x11F5;  // CL_COMMAND_COPY_BUFFER
constexpr std::uint32_t kFillBuffer = 0x1207;          // CL_COMMAND_FILL_BUFFER
// HIP_OPS operations (ROCclr's OpId): a kernel is a dispatch, everything else a copy.
constexpr std::uint32_t kOpDispatch = 0;
constexpr std::uint32_t kOpCopy = 1;
constexpr std::uint32_t kOpCount = 3;

std::uint64_t now_ns() {
  timespec now{};
  clock_gettime(CLOCK_BOOTTIME, &now);
  return static_cast<std::uint64_t>(now.tv_sec) * 1'000'000'000ULL +
         static_cast<std::uint64_t>(now.tv_nsec);
}

std::uint64_t env_number(const char* name, std::uint64_t fallback) {
  const char* text = std::getenv(name);  // NOLINT(concurrency-mt-unsafe)
  return text != nullptr && *text != '\0' ? std::strtoull(text, nullptr, 10) : fallback;
}

// ---- the tracer interface: API callbacks ----

using ApiCallback = void (*)(std::uint32_t domain, std::uint32_t cid, const void* data, void* arg);
using DataCallback = void* (*)(std::uint32_t cid, activity_record_t* record, const void* data,
                               void* arg);

struct ApiEntry {
  std::atomic<ApiCallback> fun{nullptr};
  std::atomic<void*> fun_arg{nullptr};
  std::atomic<DataCallback> act{nullptr};
  std::atomic<void*> act_arg{nullptr};
};
ApiEntry g_api[HIP_API_ID_LAST + 1];
std::atomic<int> g_acts_registered{0};  // HIP's "profiler on": some activity callback is set
std::mutex g_registration;

bool valid_api_id(std::uint32_t id) { return id >= HIP_API_ID_FIRST && id <= HIP_API_ID_LAST; }

// One traced API call, as HIP 5.2's api_callbacks_spawner_t runs it.
template <std::uint32_t kId>
class ApiTrace {
 public:
  ApiTrace() {
    if (g_acts_registered.load(std::memory_order_acquire) == 0) return;
    ApiEntry& entry = g_api[kId];
    fun_ = entry.fun.load(std::memory_order_acquire);
    fun_arg_ = entry.fun_arg.load(std::memory_order_acquire);
    act_ = entry.act.load(std::memory_order_acquire);
    act_arg_ = entry.act_arg.load(std::memory_order_acquire);
    if (act_ != nullptr) data_ = static_cast<hip_api_data_t*>(act_(kId, nullptr, nullptr, nullptr));
  }
  ApiTrace(const ApiTrace&) = delete;
  ApiTrace& operator=(const ApiTrace&) = delete;
  ~ApiTrace() {
    if (data_ == nullptr) return;
    if (fun_ != nullptr) fun_(ACTIVITY_DOMAIN_HIP_API, kId, data_, fun_arg_);
    if (act_ != nullptr) act_(kId, nullptr, nullptr, act_arg_);
  }
  hip_api_data_t* data() const { return data_; }
  // After the arguments are in data(): the enter callback.
  void enter() {
    if (fun_ == nullptr) return;
    fun_(ACTIVITY_DOMAIN_HIP_API, kId, data_, fun_arg_);
    data_->phase = ACTIVITY_API_PHASE_EXIT;
  }

 private:
  ApiCallback fun_ = nullptr;
  void* fun_arg_ = nullptr;
  DataCallback act_ = nullptr;
  void* act_arg_ = nullptr;
  hip_api_data_t* data_ = nullptr;
};

// Opens a traced call of `name` whose parameters are in scope under HIP's own names.
#define SIM_HIP_TRACE(name)                                                  \
  ApiTrace<HIP_API_ID_##name> api_trace_;                                    \
  if (hip_api_data_t* api_data_ = api_trace_.data(); api_data_ != nullptr) { \
    INIT_CB_ARGS_DATA(name, (*api_data_));                                   \
    api_trace_.enter();                                                      \
  }

// ---- the tracer interface: device work ----

struct OpsTable {
  std::atomic<void (*)(activity_correlation_id_t)> id_callback{nullptr};
  std::atomic<activity_async_callback_t> op_callback{nullptr};
  std::atomic<void*> arg{nullptr};
  std::atomic<bool> enabled[kOpCount] = {};
};
OpsTable g_ops;
std::atomic<activity_correlation_id_t> g_next_record{0};  // ROCclr counts from 0

thread_local hipError_t tl_last_error = hipSuccess;

hipError_t result(hipError_t error) {
  if (error != hipSuccess) tl_last_error = error;
  return error;
}

// ---- the simulated device ----

struct Command {
  std::uint32_t kind = 0;
  std::uint32_t op = 0;
  bool reported = false;  // HIP_OPS enabled for it when it was made
  activity_correlation_id_t record_id = 0;
  void* dst = nullptr;
  const void* src = nullptr;
  int fill = 0;
  std::size_t bytes = 0;
  std::uint64_t duration_ns = 0;
};

class Stream {
 public:
  explicit Stream(std::uint64_t id) : id_(id), worker_([this] { run(); }) {}
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() {
    {
      const std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    worker_.join();
  }

  std::uint64_t id() const { return id_; }

  void enqueue(Command command) {
    {
      const std::lock_guard lock(mutex_);
      commands_.push_back(command);
      ++submitted_;
    }
    wake_.notify_all();
  }

  void wait() {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [this] { return completed_ == submitted_; });
  }

 private:
  void run() {
    std::unique_lock lock(mutex_);
    while (true) {
      wake_.wait(lock, [this] { return stopping_ || !commands_.empty(); });
      if (commands_.empty()) return;
      const Command command = commands_.front();
      commands_.pop_front();
      lock.unlock();
      execute(command);
      lock.lock();
      ++completed_;
      done_.notify_all();
    }
  }

  void execute(const Command& command) const {
    const std::uint64_t begin = now_ns();
    if (command.kind == kFillBuffer)
      std::memset(command.dst, command.fill, command.bytes);
    else if (command.kind != kKernelExecution && command.bytes > 0)
      std::memmove(command.dst, command.src, command.bytes);
    // Then as long as the work would take on the simulated GPU.
    while (now_ns() - begin < command.duration_ns)
      std::this_thread::sleep_for(std::chrono::microseconds(10));
    const std::uint64_t end = now_ns();
    if (!command.reported) return;
    activity_async_callback_t callback = g_ops.op_callback.load(std::memory_order_acquire);
    if (callback == nullptr) return;
    activity_record_t record{};
    record.domain = ACTIVITY_DOMAIN_HIP_OPS;
    record.kind = command.kind;
    record.op = command.op;
    record.correlation_id = command.record_id;
    record.begin_ns = begin;
    record.end_ns = end;
    record.device_id = 0;
    record.queue_id = id_;
    record.bytes = command.bytes;
    callback(command.op, &record, g_ops.arg.load(std::memory_order_acquire));
  }

  std::uint64_t id_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  std::deque<Command> commands_;
  std::uint64_t submitted_ = 0;
  std::uint64_t completed_ = 0;
  bool stopping_ = false;
  std::thread worker_;
};

struct Device {
  std::mutex mutex;
  std::map<Stream*, std::unique_ptr<Stream>> streams;  // created ones
  std::uint64_t next_stream = 1;
  std::set<const void*> allocations;           // "device" memory
  std::map<const void*, std::string> kernels;  // host function -> device function name

  Stream& null_stream() {
    static Stream stream(0);  // the default stream, queue 0
    return stream;
  }
  Stream* find(hipStream_t handle) {
    if (handle == nullptr) return &null_stream();
    const std::lock_guard lock(mutex);
    const auto found = streams.find(reinterpret_cast<Stream*>(handle));
    return found == streams.end() ? nullptr : found->second.get();
  }
  bool on_device(const void* pointer) {
    const std::lock_guard lock(mutex);
    return allocations.contains(pointer);
  }
};

Device& device() {
  static auto* instance = new Device;  // outlives the program's static destructors
  return *instance;
}

// Makes `command` (a HIP_OPS op if enabled: the id callback runs here, in the API call).
void submit(Stream& stream, Command command) {
  command.op = command.kind == kKernelExecution ? kOpDispatch : kOpCopy;
  command.reported = g_ops.enabled[command.op].load(std::memory_order_acquire) &&
                     g_ops.op_callback.load(std::memory_order_acquire) != nullptr;
  if (command.reported) {
    command.record_id = g_next_record.fetch_add(1, std::memory_order_relaxed);
    if (auto id_callback = g_ops.id_callback.load(std::memory_order_acquire))
      id_callback(command.record_id);
  }
  stream.enqueue(command);
}

std::uint64_t copy_duration_ns(std::size_t bytes) {
  static const std::uint64_t gigabytes_per_second = env_number("SIM_HIP_COPY_GBPS", 10);
  return 2000 + bytes / std::max<std::uint64_t>(gigabytes_per_second, 1);
}

std::uint32_t copy_kind(void* dst, const void* src, hipMemcpyKind kind) {
  if (kind == hipMemcpyDefault) {
    const bool from_device = device().on_device(src);
    const bool to_device = device().on_device(dst);
    if (from_device && to_device) return kCopyDeviceToDevice;
    return from_device ? kCopyDeviceToHost : kCopyHostToDevice;
  }
  switch (kind) {
    case hipMemcpyHostToDevice:
      return kCopyHostToDevice;
    case hipMemcpyDeviceToHost:
      return kCopyDeviceToHost;
    default:
      return kCopyDeviceToDevice;
  }
}

hipError_t copy(void* dst, const void* src, std::size_t sizeBytes, hipMemcpyKind kind,
                hipStream_t stream, bool wait) {
  Stream* target = device().find(stream);
  if (target == nullptr) return hipErrorInvalidHandle;
  if ((dst == nullptr || src == nullptr) && sizeBytes > 0) return hipErrorInvalidValue;
  Command command;
  command.kind = copy_kind(dst, src, kind);
  command.dst = dst;
  command.src = src;
  command.bytes = sizeBytes;
  command.duration_ns = copy_duration_ns(sizeBytes);
  submit(*target, command);
  if (wait) target->wait();
  return hipSuccess;
}

}  // namespace

// ---- what a tracer calls ----

extern "C" {

hipError_t hipRegisterApiCallback(uint32_t id, void* fun, void* arg) {
  if (!valid_api_id(id)) return hipErrorInvalidValue;
  const std::lock_guard lock(g_registration);
  g_api[id].fun_arg.store(arg, std::memory_order_release);
  g_api[id].fun.store(reinterpret_cast<ApiCallback>(fun), std::memory_order_release);
  return hipSuccess;
}

hipError_t hipRemoveApiCallback(uint32_t id) {
  return hipRegisterApiCallback(id, nullptr, nullptr);
}

hipError_t hipRegisterActivityCallback(uint32_t id, void* fun, void* arg) {
  if (!valid_api_id(id)) return hipErrorInvalidValue;
  const std::lock_guard lock(g_registration);
  const bool had = g_api[id].act.load() != nullptr;
  g_api[id].act_arg.store(arg, std::memory_order_release);
  g_api[id].act.store(reinterpret_cast<DataCallback>(fun), std::memory_order_release);
  const bool has = fun != nullptr;
  if (had != has) g_acts_registered.fetch_add(has ? 1 : -1, std::memory_order_acq_rel);
  return hipSuccess;
}

hipError_t hipRemoveActivityCallback(uint32_t id) {
  return hipRegisterActivityCallback(id, nullptr, nullptr);
}

const char* hipApiName(uint32_t id) { return hip_api_name(id); }

void hipInitActivityCallback(void* id_callback, void* op_callback, void* arg) {
  g_ops.arg.store(arg, std::memory_order_release);
  g_ops.id_callback.store(reinterpret_cast<void (*)(activity_correlation_id_t)>(id_callback),
                          std::memory_order_release);
  g_ops.op_callback.store(reinterpret_cast<activity_async_callback_t>(op_callback),
                          std::memory_order_release);
}

bool hipEnableActivityCallback(uint32_t op, bool enable) {
  if (op >= kOpCount) return false;
  g_ops.enabled[op].store(enable, std::memory_order_release);
  return true;
}

const char* hipGetCmdName(uint32_t op) {
  switch (op) {
    case kKernelExecution:
      return "KernelExecution";
    case kCopyDeviceToHost:
      return "CopyDeviceToHost";
    case kCopyHostToDevice:
      return "CopyHostToDevice";
    case kCopyDeviceToDevice:
      return "CopyDeviceToDevice";
    case kFillBuffer:
      return "FillBuffer";
    default:
      return "Unknown command type";
  }
}

const char* hipKernelNameRefByPtr(const void* hostFunction, hipStream_t /*stream*/) {
  Device& gpu = device();
  const std::lock_guard lock(gpu.mutex);
  const auto found = gpu.kernels.find(hostFunction);
  return found == gpu.kernels.end() ? nullptr : found->second.c_str();
}

// A module function is the host function it was registered for, in this simulation.
const char* hipKernelNameRef(const hipFunction_t f) {
  return hipKernelNameRefByPtr(reinterpret_cast<const void*>(f), nullptr);
}

// ---- what a compiled HIP program calls at load: kernel registration (hipcc's) ----

void** __hipRegisterFatBinary(const void* /*data*/) {
  static void* modules = nullptr;
  return &modules;
}

void __hipRegisterFunction(void** /*modules*/, const void* hostFunction, char* /*deviceFunction*/,
                           const char* deviceName, unsigned int /*threadLimit*/, void* /*tid*/,
                           void* /*bid*/, dim3* /*blockDim*/, dim3* /*gridDim*/, int* /*wSize*/) {
  Device& gpu = device();
  const std::lock_guard lock(gpu.mutex);
  gpu.kernels[hostFunction] = deviceName != nullptr ? deviceName : "";
}

void __hipUnregisterFatBinary(void** /*modules*/) {}

// ---- the simulated API ----

hipError_t hipInit(unsigned int flags) {
  SIM_HIP_TRACE(hipInit);
  return hipSuccess;
}

hipError_t hipGetDeviceCount(int* count) {
  if (count == nullptr) return result(hipErrorInvalidValue);
  *count = 1;
  return hipSuccess;
}

hipError_t hipSetDevice(int device) {
  SIM_HIP_TRACE(hipSetDevice);
  return result(device == 0 ? hipSuccess : hipErrorInvalidDevice);
}

hipError_t hipGetDevice(int* deviceId) {
  SIM_HIP_TRACE(hipGetDevice);
  if (deviceId == nullptr) return result(hipErrorInvalidValue);
  *deviceId = 0;
  return hipSuccess;
}

hipError_t hipRuntimeGetVersion(int* runtimeVersion) {
  if (runtimeVersion == nullptr) return result(hipErrorInvalidValue);
  *runtimeVersion = 50221153;  // HIP 5.2 (major * 10000000 + minor * 100000 + patch)
  return hipSuccess;
}

hipError_t hipMalloc(void** ptr, size_t sizeBytes) {
  SIM_HIP_TRACE(hipMalloc);
  if (ptr == nullptr) return result(hipErrorInvalidValue);
  *ptr = std::malloc(sizeBytes == 0 ? 1 : sizeBytes);  // NOLINT(cppcoreguidelines-no-malloc)
  if (*ptr == nullptr) return result(hipErrorOutOfMemory);
  Device& gpu = device();
  const std::lock_guard lock(gpu.mutex);
  gpu.allocations.insert(*ptr);
  return hipSuccess;
}

hipError_t hipFree(void* ptr) {
  SIM_HIP_TRACE(hipFree);
  if (ptr == nullptr) return hipSuccess;
  Device& gpu = device();
  {
    const std::lock_guard lock(gpu.mutex);
    if (gpu.allocations.erase(ptr) == 0) return result(hipErrorInvalidValue);
  }
  std::free(ptr);  // NOLINT(cppcoreguidelines-no-malloc)
  return hipSuccess;
}

hipError_t hipHostMalloc(void** ptr, size_t sizeBytes, unsigned int flags) {
  SIM_HIP_TRACE(hipHostMalloc);
  if (ptr == nullptr) return result(hipErrorInvalidValue);
  *ptr = std::malloc(sizeBytes == 0 ? 1 : sizeBytes);  // NOLINT(cppcoreguidelines-no-malloc)
  return *ptr == nullptr ? result(hipErrorOutOfMemory) : hipSuccess;
}

hipError_t hipHostFree(void* ptr) {
  SIM_HIP_TRACE(hipHostFree);
  std::free(ptr);  // NOLINT(cppcoreguidelines-no-malloc)
  return hipSuccess;
}

hipError_t hipMemcpy(void* dst, const void* src, size_t sizeBytes, hipMemcpyKind kind) {
  SIM_HIP_TRACE(hipMemcpy);
  return result(copy(dst, src, sizeBytes, kind, nullptr, true));
}

hipError_t hipMemcpyAsync(void* dst, const void* src, size_t sizeBytes, hipMemcpyKind kind,
                          hipStream_t stream) {
  SIM_HIP_TRACE(hipMemcpyAsync);
  return result(copy(dst, src, sizeBytes, kind, stream, false));
}

hipError_t hipMemset(void* dst, int value, size_t sizeBytes) {
  SIM_HIP_TRACE(hipMemset);
  if (dst == nullptr && sizeBytes > 0) return result(hipErrorInvalidValue);
  Command command;
  command.kind = kFillBuffer;
  command.dst = dst;
  command.fill = value;
  command.bytes = sizeBytes;
  command.duration_ns = copy_duration_ns(sizeBytes);
  Stream& stream = device().null_stream();
  submit(stream, command);
  stream.wait();
  return hipSuccess;
}

hipError_t hipStreamCreate(hipStream_t* stream) {
  SIM_HIP_TRACE(hipStreamCreate);
  if (stream == nullptr) return result(hipErrorInvalidValue);
  Device& gpu = device();
  const std::lock_guard lock(gpu.mutex);
  auto created = std::make_unique<Stream>(gpu.next_stream++);
  *stream = reinterpret_cast<hipStream_t>(created.get());
  gpu.streams.emplace(created.get(), std::move(created));
  return hipSuccess;
}

hipError_t hipStreamDestroy(hipStream_t stream) {
  SIM_HIP_TRACE(hipStreamDestroy);
  Device& gpu = device();
  std::unique_ptr<Stream> gone;
  {
    const std::lock_guard lock(gpu.mutex);
    const auto found = gpu.streams.find(reinterpret_cast<Stream*>(stream));
    if (found == gpu.streams.end()) return result(hipErrorInvalidHandle);
    gone = std::move(found->second);
    gpu.streams.erase(found);
  }
  gone->wait();
  return hipSuccess;
}

hipError_t hipStreamSynchronize(hipStream_t stream) {
  SIM_HIP_TRACE(hipStreamSynchronize);
  Stream* target = device().find(stream);
  if (target == nullptr) return result(hipErrorInvalidHandle);
  target->wait();
  return hipSuccess;
}

hipError_t hipDeviceSynchronize(void) {
  SIM_HIP_TRACE(hipDeviceSynchronize);
  Device& gpu = device();
  gpu.null_stream().wait();
  std::vector<Stream*> all;
  {
    const std::lock_guard lock(gpu.mutex);
    for (const auto& [key, stream] : gpu.streams) all.push_back(stream.get());
  }
  for (Stream* stream : all) stream->wait();
  return hipSuccess;
}

hipError_t hipLaunchKernel(const void* hostFunction, dim3 gridDim, dim3 blockDim, void** args,
                           size_t sharedMemBytes, hipStream_t stream) {
  SIM_HIP_TRACE(hipLaunchKernel);
  Stream* target = device().find(stream);
  if (target == nullptr) return result(hipErrorInvalidHandle);
  if (hipKernelNameRefByPtr(hostFunction, stream) == nullptr)
    return result(hipErrorInvalidDeviceFunction);
  Command command;
  command.kind = kKernelExecution;
  static const std::uint64_t kernel_ns = env_number("SIM_HIP_KERNEL_US", 50) * 1000;
  command.duration_ns = kernel_ns;
  submit(*target, command);
  return hipSuccess;
}

hipError_t hipGetLastError(void) {
  SIM_HIP_TRACE(hipGetLastError);
  const hipError_t error = tl_last_error;
  tl_last_error = hipSuccess;
  return error;
}

hipError_t hipPeekAtLastError(void) {
  SIM_HIP_TRACE(hipPeekAtLastError);
  return tl_last_error;
}

const char* hipGetErrorName(hipError_t hip_error) {
  switch (hip_error) {
    case hipSuccess:
      return "hipSuccess";
    case hipErrorInvalidValue:
      return "hipErrorInvalidValue";
    case hipErrorNotSupported:
      return "hipErrorNotSupported";
    default:
      return "hipErrorUnknown";
  }
}

const char* hipGetErrorString(hipError_t hipError) { return hipGetErrorName(hipError); }

}  // extern "C"
