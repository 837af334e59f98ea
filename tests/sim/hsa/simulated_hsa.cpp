// A simulated HSA runtime (libhsa-runtime64.so.1) for the tests: no AMD GPU exists here. It is
// built against Debian's ROCm 5.2 HSA headers and exports what Debian's library exports (the
// rest as stubs returning HSA_STATUS_ERROR, tests/sim/gen_sim_exports.py). Like ROCr, every
// public function it simulates calls through the runtime's API table (HsaApiTable), which the
// first hsa_init hands to each tool named in HSA_TOOLS_LIB (OnLoad). What is real is what a
// tracer sees:
//   - one GPU agent and one CPU agent; signals, with waits and asynchronous handlers;
//   - AQL queues: kernel dispatch and barrier packets run in order on a device thread (a
//     kernel lasts SIM_HSA_KERNEL_US, default 50), each decrementing its completion signal;
//     with profiling enabled their start and end are kept, in the GPU's ticks;
//   - intercept queues (hsa_amd_queue_intercept_create/_register, in the table only, as in
//     ROCr): at each doorbell the handler sees the packets and writes them on;
//   - hsa_amd_memory_async_copy on a copy thread, timed when copy profiling is on;
//   - the GPU's clock runs at half the host's rate from an offset:
//     hsa_amd_profiling_convert_tick_to_system_domain turns its ticks into system ns
//     (CLOCK_BOOTTIME, frequency 1 GHz);
//   - code objects and the AMD loader extension (simulated_hsa_loader.cpp).
#define AMD_INTERNAL_BUILD 1
#include <dlfcn.h>
#include <hsa/hsa_api_trace.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tests/sim/hsa/simulated_hsa.hpp"

namespace sim_hsa {
namespace {

constexpr std::uint64_t kTickOffset = 123'456'789;

std::uint64_t now_ns() {
  timespec now{};
  clock_gettime(CLOCK_BOOTTIME, &now);
  return static_cast<std::uint64_t>(now.tv_sec) * 1'000'000'000ULL +
         static_cast<std::uint64_t>(now.tv_nsec);
}
// The GPU's clock: half the rate of the host's, from an offset.
std::uint64_t gpu_ticks() { return now_ns() / 2 + kTickOffset; }

HsaApiTableContainer& tables() {
  static HsaApiTableContainer container;
  return container;
}

// ---- signals ----

struct Signal {
  std::atomic<hsa_signal_value_t> value{0};
  std::mutex mutex;
  std::condition_variable changed;
  // Profiling times of the work that completes it (GPU ticks for dispatches, system ns for
  // copies, as ROCr reports them).
  std::uint64_t start = 0;
  std::uint64_t end = 0;
};

Signal* signal_of(hsa_signal_t handle) { return reinterpret_cast<Signal*>(handle.handle); }

void set_value(Signal& signal, hsa_signal_value_t value) {
  {
    const std::lock_guard lock(signal.mutex);
    signal.value.store(value);
  }
  signal.changed.notify_all();
}

bool satisfied(hsa_signal_condition_t condition, hsa_signal_value_t value,
               hsa_signal_value_t compare) {
  switch (condition) {
    case HSA_SIGNAL_CONDITION_EQ:
      return value == compare;
    case HSA_SIGNAL_CONDITION_NE:
      return value != compare;
    case HSA_SIGNAL_CONDITION_LT:
      return value < compare;
    case HSA_SIGNAL_CONDITION_GTE:
      return value >= compare;
  }
  return false;
}

hsa_signal_value_t wait_for(Signal& signal, hsa_signal_condition_t condition,
                            hsa_signal_value_t compare) {
  std::unique_lock lock(signal.mutex);
  signal.changed.wait(lock, [&] { return satisfied(condition, signal.value.load(), compare); });
  return signal.value.load();
}

// ---- queues ----

struct Queue;
thread_local Queue* tl_intercepting = nullptr;  // the intercept queue whose handler runs

struct Queue {
  hsa_queue_t queue{};  // first: the application's hsa_queue_t* is this object
  std::unique_ptr<char[]> ring;
  Signal doorbell;
  std::atomic<std::uint64_t> write_index{0};
  std::atomic<std::uint64_t> read_index{0};
  bool profiling = false;
  // An intercept queue: the packets the application wrote go to its handler, which writes
  // them on to `target`.
  std::unique_ptr<Queue> target;
  hsa_amd_queue_intercept_handler handler = nullptr;
  void* handler_data = nullptr;
  std::uint64_t forwarded = 0;  // packets of the ring handed to the handler
  // The device's side of a hardware queue.
  std::mutex mutex;
  std::condition_variable work;
  bool stopping = false;
  std::thread device;

  ~Queue() {
    if (device.joinable()) {
      {
        const std::lock_guard lock(mutex);
        stopping = true;
      }
      work.notify_all();
      device.join();
    }
  }

  hsa_kernel_dispatch_packet_t* slot(std::uint64_t index) {
    return reinterpret_cast<hsa_kernel_dispatch_packet_t*>(ring.get()) + (index % queue.size);
  }

  // The device: runs each packet once its header is valid, in order.
  void run() {
    static const std::uint64_t kernel_ns = [] {
      const char* text = std::getenv("SIM_HSA_KERNEL_US");  // NOLINT(concurrency-mt-unsafe)
      return (text != nullptr ? std::strtoull(text, nullptr, 10) : 50) * 1000;
    }();
    std::unique_lock lock(mutex);
    while (true) {
      work.wait(lock, [&] { return stopping || read_index.load() < write_index.load(); });
      if (stopping) return;
      lock.unlock();
      hsa_kernel_dispatch_packet_t& packet = *slot(read_index.load());
      const auto type = static_cast<std::uint16_t>(packet.header & 0xFF);
      Signal* done = signal_of(packet.completion_signal);
      const std::uint64_t start = gpu_ticks();
      if (type == HSA_PACKET_TYPE_KERNEL_DISPATCH) {
        const std::uint64_t began = now_ns();
        while (now_ns() - began < kernel_ns)
          std::this_thread::sleep_for(std::chrono::microseconds(10));
      }
      if (done != nullptr) {
        if (profiling) {
          done->start = start;
          done->end = gpu_ticks();
        }
        {
          const std::lock_guard signal_lock(done->mutex);
          done->value.fetch_sub(1);
        }
        done->changed.notify_all();
      }
      packet.header = HSA_PACKET_TYPE_INVALID;
      read_index.fetch_add(1);
      lock.lock();
    }
  }
};

std::unique_ptr<Queue> make_queue(std::uint32_t size, bool hardware) {
  auto made = std::make_unique<Queue>();
  made->queue.type = HSA_QUEUE_TYPE_MULTI;
  made->queue.features = HSA_QUEUE_FEATURE_KERNEL_DISPATCH;
  made->queue.size = size;
  made->ring = std::make_unique<char[]>(std::size_t{size} * sizeof(hsa_kernel_dispatch_packet_t));
  for (std::uint32_t i = 0; i < size; ++i) made->slot(i)->header = HSA_PACKET_TYPE_INVALID;
  made->queue.base_address = made->ring.get();
  made->queue.doorbell_signal.handle = reinterpret_cast<std::uint64_t>(&made->doorbell);
  static std::atomic<std::uint64_t> next_id{0};
  made->queue.id = next_id++;
  if (hardware) made->device = std::thread([queue = made.get()] { queue->run(); });
  return made;
}

struct Queues {
  std::mutex mutex;
  std::map<const hsa_queue_t*, std::unique_ptr<Queue>> all;
  std::map<const Signal*, Queue*> by_doorbell;
};
Queues& queues() {
  static auto* instance = new Queues;
  return *instance;
}

Queue* register_queue(std::unique_ptr<Queue> made) {
  Queue* queue = made.get();
  Queues& known = queues();
  const std::lock_guard lock(known.mutex);
  known.by_doorbell[&queue->doorbell] = queue;
  if (queue->target) known.by_doorbell[&queue->target->doorbell] = queue->target.get();
  known.all.emplace(&queue->queue, std::move(made));
  return queue;
}

// Copies packets to the end of a hardware queue and rings it.
void write_packets(Queue& hardware, const void* packets, std::uint64_t count) {
  const auto* from = static_cast<const hsa_kernel_dispatch_packet_t*>(packets);
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint64_t index = hardware.write_index.load();
    *hardware.slot(index) = from[i];
    {
      const std::lock_guard lock(hardware.mutex);
      hardware.write_index.store(index + 1);
    }
  }
  hardware.work.notify_all();
}

// The writer handed to an interceptor: onto the queue whose handler runs on this thread.
void intercept_writer(const void* packets, std::uint64_t count) {
  if (tl_intercepting != nullptr) write_packets(*tl_intercepting->target, packets, count);
}

// A doorbell rang: a hardware queue wakes its device; an intercept queue hands the packets
// written since the last doorbell to its handler.
void ring(Queue& queue) {
  if (!queue.target) {
    queue.work.notify_all();
    return;
  }
  const std::uint64_t written = queue.write_index.load();
  while (queue.forwarded < written) {
    const std::uint64_t index = queue.forwarded++;
    hsa_kernel_dispatch_packet_t packet = *queue.slot(index);
    queue.slot(index)->header = HSA_PACKET_TYPE_INVALID;
    if (queue.handler != nullptr) {
      tl_intercepting = &queue;
      queue.handler(&packet, 1, index, queue.handler_data, intercept_writer);
      tl_intercepting = nullptr;
    } else {
      write_packets(*queue.target, &packet, 1);
    }
  }
}

// ---- the runtime's functions (its API table's entries) ----

bool g_copy_profiling = false;

hsa_status_t init_runtime();

hsa_status_t shut_down() { return HSA_STATUS_SUCCESS; }

hsa_status_t status_string(hsa_status_t status, const char** text) {
  if (text == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *text = status == HSA_STATUS_SUCCESS ? "HSA_STATUS_SUCCESS" : "an error (simulated runtime)";
  return HSA_STATUS_SUCCESS;
}

hsa_status_t system_get_info(hsa_system_info_t attribute, void* value) {
  if (value == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  switch (attribute) {
    case HSA_SYSTEM_INFO_TIMESTAMP:
      *static_cast<std::uint64_t*>(value) = now_ns();
      return HSA_STATUS_SUCCESS;
    case HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY:
      *static_cast<std::uint64_t*>(value) = 1'000'000'000;
      return HSA_STATUS_SUCCESS;
    default:
      return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
}

hsa_status_t iterate_agents(hsa_status_t (*callback)(hsa_agent_t, void*), void* data) {
  if (callback == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (const hsa_agent_t agent : {kCpu, kGpu})
    if (const hsa_status_t status = callback(agent, data); status != HSA_STATUS_SUCCESS)
      return status;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t agent_get_info(hsa_agent_t agent, hsa_agent_info_t attribute, void* value) {
  if (value == nullptr || (agent.handle != kGpu.handle && agent.handle != kCpu.handle))
    return HSA_STATUS_ERROR_INVALID_AGENT;
  switch (attribute) {
    case HSA_AGENT_INFO_DEVICE:
      *static_cast<hsa_device_type_t*>(value) =
          agent.handle == kGpu.handle ? HSA_DEVICE_TYPE_GPU : HSA_DEVICE_TYPE_CPU;
      return HSA_STATUS_SUCCESS;
    case HSA_AGENT_INFO_NAME: {
      char* name = static_cast<char*>(value);
      std::memset(name, 0, 64);
      std::strncpy(name, agent.handle == kGpu.handle ? "gfx90a" : "Simulated CPU", 63);
      return HSA_STATUS_SUCCESS;
    }
    default:
      return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
}

hsa_status_t signal_create(hsa_signal_value_t initial_value, uint32_t /*num_consumers*/,
                           const hsa_agent_t* /*consumers*/, hsa_signal_t* signal) {
  if (signal == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  auto* made = new Signal;  // NOLINT(cppcoreguidelines-owning-memory): the handle owns it
  made->value.store(initial_value);
  signal->handle = reinterpret_cast<std::uint64_t>(made);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t signal_destroy(hsa_signal_t signal) {
  if (signal.handle == 0) return HSA_STATUS_ERROR_INVALID_SIGNAL;
  delete signal_of(signal);  // NOLINT(cppcoreguidelines-owning-memory)
  return HSA_STATUS_SUCCESS;
}

hsa_signal_value_t signal_load(hsa_signal_t signal) { return signal_of(signal)->value.load(); }

void signal_store(hsa_signal_t signal, hsa_signal_value_t value) {
  Signal& target = *signal_of(signal);
  Queue* queue = nullptr;
  {
    Queues& known = queues();
    const std::lock_guard lock(known.mutex);
    const auto found = known.by_doorbell.find(&target);
    if (found != known.by_doorbell.end()) queue = found->second;
  }
  set_value(target, value);
  if (queue != nullptr) ring(*queue);
}

void signal_subtract(hsa_signal_t signal, hsa_signal_value_t value) {
  Signal& target = *signal_of(signal);
  {
    const std::lock_guard lock(target.mutex);
    target.value.fetch_sub(value);
  }
  target.changed.notify_all();
}

hsa_signal_value_t signal_wait(hsa_signal_t signal, hsa_signal_condition_t condition,
                               hsa_signal_value_t compare_value, uint64_t /*timeout_hint*/,
                               hsa_wait_state_t /*wait_state_hint*/) {
  return wait_for(*signal_of(signal), condition, compare_value);
}

hsa_status_t signal_async_handler(hsa_signal_t signal, hsa_signal_condition_t condition,
                                  hsa_signal_value_t value, hsa_amd_signal_handler handler,
                                  void* arg) {
  if (signal.handle == 0 || handler == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  std::thread([signal, condition, value, handler, arg] {
    while (handler(wait_for(*signal_of(signal), condition, value), arg)) {
    }
  }).detach();
  return HSA_STATUS_SUCCESS;
}

hsa_status_t queue_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t /*type*/,
                          void (* /*callback*/)(hsa_status_t, hsa_queue_t*, void*), void* /*data*/,
                          uint32_t /*private_segment_size*/, uint32_t /*group_segment_size*/,
                          hsa_queue_t** queue) {
  if (agent.handle != kGpu.handle) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (queue == nullptr || size == 0 || (size & (size - 1)) != 0)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *queue = &register_queue(make_queue(size, true))->queue;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t queue_intercept_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                                    void (*callback)(hsa_status_t, hsa_queue_t*, void*), void* data,
                                    uint32_t private_size, uint32_t group_size,
                                    hsa_queue_t** queue) {
  if (agent.handle != kGpu.handle) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (queue == nullptr || size == 0 || (size & (size - 1)) != 0)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  (void)type;
  (void)callback;
  (void)data;
  (void)private_size;
  (void)group_size;
  auto made = make_queue(size, false);
  made->target = make_queue(size, true);
  *queue = &register_queue(std::move(made))->queue;
  return HSA_STATUS_SUCCESS;
}

Queue* queue_of(const hsa_queue_t* queue) {
  Queues& known = queues();
  const std::lock_guard lock(known.mutex);
  const auto found = known.all.find(queue);
  return found == known.all.end() ? nullptr : found->second.get();
}

hsa_status_t queue_intercept_register(hsa_queue_t* queue, hsa_amd_queue_intercept_handler callback,
                                      void* user_data) {
  Queue* found = queue_of(queue);
  if (found == nullptr || !found->target) return HSA_STATUS_ERROR_INVALID_QUEUE;
  found->handler = callback;
  found->handler_data = user_data;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t queue_destroy(hsa_queue_t* queue) {
  std::unique_ptr<Queue> gone;
  Queues& known = queues();
  {
    const std::lock_guard lock(known.mutex);
    const auto found = known.all.find(queue);
    if (found == known.all.end()) return HSA_STATUS_ERROR_INVALID_QUEUE;
    gone = std::move(found->second);
    known.all.erase(found);
    known.by_doorbell.erase(&gone->doorbell);
    if (gone->target) known.by_doorbell.erase(&gone->target->doorbell);
  }
  return HSA_STATUS_SUCCESS;
}

uint64_t queue_load_write_index(const hsa_queue_t* queue) {
  Queue* found = queue_of(queue);
  return found == nullptr ? 0 : found->write_index.load();
}

uint64_t queue_add_write_index(const hsa_queue_t* queue, uint64_t value) {
  Queue* found = queue_of(queue);
  return found == nullptr ? 0 : found->write_index.fetch_add(value);
}

uint64_t queue_load_read_index(const hsa_queue_t* queue) {
  Queue* found = queue_of(queue);
  if (found == nullptr) return 0;
  return found->target ? found->forwarded : found->read_index.load();
}

hsa_status_t profiling_set_profiler_enabled(hsa_queue_t* queue, int enable) {
  Queue* found = queue_of(queue);
  if (found == nullptr) return HSA_STATUS_ERROR_INVALID_QUEUE;
  found->profiling = enable != 0;
  if (found->target) found->target->profiling = enable != 0;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t profiling_get_dispatch_time(hsa_agent_t agent, hsa_signal_t signal,
                                         hsa_amd_profiling_dispatch_time_t* time) {
  if (agent.handle != kGpu.handle) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (signal.handle == 0 || time == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  time->start = signal_of(signal)->start;
  time->end = signal_of(signal)->end;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t profiling_async_copy_enable(bool enable) {
  g_copy_profiling = enable;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t profiling_get_async_copy_time(hsa_signal_t signal,
                                           hsa_amd_profiling_async_copy_time_t* time) {
  if (signal.handle == 0 || time == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  time->start = signal_of(signal)->start;
  time->end = signal_of(signal)->end;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t profiling_convert_tick_to_system_domain(hsa_agent_t agent, uint64_t agent_tick,
                                                     uint64_t* system_tick) {
  if (agent.handle != kGpu.handle) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (system_tick == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *system_tick = (agent_tick - kTickOffset) * 2;
  return HSA_STATUS_SUCCESS;
}

// One copy thread, in submission order.
struct Copies {
  std::mutex mutex;
  std::condition_variable work;
  std::deque<std::function<void()>> pending;
  std::thread worker{[this] { run(); }};
  void run() {
    std::unique_lock lock(mutex);
    while (true) {
      work.wait(lock, [&] { return !pending.empty(); });
      auto next = std::move(pending.front());
      pending.pop_front();
      lock.unlock();
      next();
      lock.lock();
    }
  }
};
Copies& copies() {
  static auto* instance = new Copies;  // its thread lives as long as the process
  return *instance;
}

hsa_status_t memory_async_copy(void* dst, hsa_agent_t /*dst_agent*/, const void* src,
                               hsa_agent_t /*src_agent*/, size_t size, uint32_t num_dep_signals,
                               const hsa_signal_t* dep_signals, hsa_signal_t completion_signal) {
  if ((dst == nullptr || src == nullptr) && size > 0) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  std::vector<hsa_signal_t> waits(dep_signals, dep_signals + num_dep_signals);
  const bool profiled = g_copy_profiling;
  Copies& engine = copies();
  {
    const std::lock_guard lock(engine.mutex);
    engine.pending.emplace_back([=] {
      for (const hsa_signal_t wait : waits) wait_for(*signal_of(wait), HSA_SIGNAL_CONDITION_LT, 1);
      const std::uint64_t start = now_ns();
      std::memmove(dst, src, size);
      while (now_ns() - start < 2000 + size / 10) std::this_thread::yield();
      Signal* done = signal_of(completion_signal);
      if (done == nullptr) return;
      if (profiled) {
        done->start = start;  // system ns, as ROCr reports copy times
        done->end = now_ns();
      }
      {
        const std::lock_guard signal_lock(done->mutex);
        done->value.fetch_sub(1);
      }
      done->changed.notify_all();
    });
  }
  engine.work.notify_all();
  return HSA_STATUS_SUCCESS;
}

// ---- tools ----

using OnLoad = bool (*)(HsaApiTable*, uint64_t, uint64_t, const char* const*);

void load_tools() {
  const char* listed = std::getenv("HSA_TOOLS_LIB");  // NOLINT(concurrency-mt-unsafe)
  if (listed == nullptr) return;
  const std::string names(listed);
  for (std::size_t start = 0; start < names.size();) {
    std::size_t end = names.find(' ', start);
    if (end == std::string::npos) end = names.size();
    const std::string path = names.substr(start, end - start);
    start = end + 1;
    if (path.empty()) continue;
    void* library = dlopen(path.c_str(), RTLD_NOW);
    auto on_load =
        library != nullptr ? reinterpret_cast<OnLoad>(dlsym(library, "OnLoad")) : nullptr;
    if (on_load == nullptr || !on_load(&tables().root, 1, 0, nullptr))
      std::fprintf(stderr, "simulated HSA runtime: tool %s not loaded\n", path.c_str());
  }
}

hsa_status_t init_runtime() {
  static std::once_flag tools_loaded;
  std::call_once(tools_loaded, load_tools);
  return HSA_STATUS_SUCCESS;
}

// The runtime's own table entries, filled where it simulates a function.
[[maybe_unused]] const bool kTableFilled = [] {
  HsaApiTableContainer& t = tables();
  CoreApiTable& core = t.core;
  core.hsa_init_fn = init_runtime;
  core.hsa_shut_down_fn = shut_down;
  core.hsa_status_string_fn = status_string;
  core.hsa_system_get_info_fn = system_get_info;
  core.hsa_system_get_major_extension_table_fn = system_get_major_extension_table;
  core.hsa_iterate_agents_fn = iterate_agents;
  core.hsa_agent_get_info_fn = agent_get_info;
  core.hsa_signal_create_fn = signal_create;
  core.hsa_signal_destroy_fn = signal_destroy;
  core.hsa_signal_load_relaxed_fn = signal_load;
  core.hsa_signal_load_scacquire_fn = signal_load;
  core.hsa_signal_store_relaxed_fn = signal_store;
  core.hsa_signal_store_screlease_fn = signal_store;
  core.hsa_signal_subtract_relaxed_fn = signal_subtract;
  core.hsa_signal_subtract_screlease_fn = signal_subtract;
  core.hsa_signal_wait_relaxed_fn = signal_wait;
  core.hsa_signal_wait_scacquire_fn = signal_wait;
  core.hsa_queue_create_fn = queue_create;
  core.hsa_queue_destroy_fn = queue_destroy;
  core.hsa_queue_load_write_index_relaxed_fn = queue_load_write_index;
  core.hsa_queue_load_write_index_scacquire_fn = queue_load_write_index;
  core.hsa_queue_add_write_index_relaxed_fn = queue_add_write_index;
  core.hsa_queue_add_write_index_scacq_screl_fn = queue_add_write_index;
  core.hsa_queue_load_read_index_relaxed_fn = queue_load_read_index;
  core.hsa_queue_load_read_index_scacquire_fn = queue_load_read_index;
  core.hsa_code_object_reader_create_from_file_fn = code_object_reader_create_from_file;
  core.hsa_code_object_reader_create_from_memory_fn = code_object_reader_create_from_memory;
  core.hsa_code_object_reader_destroy_fn = code_object_reader_destroy;
  core.hsa_executable_create_alt_fn = executable_create_alt;
  core.hsa_executable_load_agent_code_object_fn = executable_load_agent_code_object;
  core.hsa_executable_freeze_fn = executable_freeze;
  core.hsa_executable_destroy_fn = executable_destroy;
  core.hsa_executable_iterate_symbols_fn = executable_iterate_symbols;
  core.hsa_executable_symbol_get_info_fn = executable_symbol_get_info;
  AmdExtTable& amd = t.amd_ext;
  amd.hsa_amd_signal_async_handler_fn = signal_async_handler;
  amd.hsa_amd_queue_intercept_create_fn = queue_intercept_create;
  amd.hsa_amd_queue_intercept_register_fn = queue_intercept_register;
  amd.hsa_amd_profiling_set_profiler_enabled_fn = profiling_set_profiler_enabled;
  amd.hsa_amd_profiling_get_dispatch_time_fn = profiling_get_dispatch_time;
  amd.hsa_amd_profiling_async_copy_enable_fn = profiling_async_copy_enable;
  amd.hsa_amd_profiling_get_async_copy_time_fn = profiling_get_async_copy_time;
  amd.hsa_amd_profiling_convert_tick_to_system_domain_fn = profiling_convert_tick_to_system_domain;
  amd.hsa_amd_memory_async_copy_fn = memory_async_copy;
  return true;
}();

}  // namespace
}  // namespace sim_hsa

using sim_hsa::tables;

// ---- the exported API: through the table, as ROCr's entry points are ----

extern "C" {

hsa_status_t hsa_init() { return tables().core.hsa_init_fn(); }
hsa_status_t hsa_shut_down() { return tables().core.hsa_shut_down_fn(); }
hsa_status_t hsa_status_string(hsa_status_t status, const char** text) {
  return tables().core.hsa_status_string_fn(status, text);
}
hsa_status_t hsa_system_get_info(hsa_system_info_t attribute, void* value) {
  return tables().core.hsa_system_get_info_fn(attribute, value);
}
hsa_status_t hsa_system_get_major_extension_table(uint16_t extension, uint16_t version_major,
                                                  size_t table_length, void* table) {
  return tables().core.hsa_system_get_major_extension_table_fn(extension, version_major,
                                                               table_length, table);
}
hsa_status_t hsa_iterate_agents(hsa_status_t (*callback)(hsa_agent_t, void*), void* data) {
  return tables().core.hsa_iterate_agents_fn(callback, data);
}
hsa_status_t hsa_agent_get_info(hsa_agent_t agent, hsa_agent_info_t attribute, void* value) {
  return tables().core.hsa_agent_get_info_fn(agent, attribute, value);
}
hsa_status_t hsa_signal_create(hsa_signal_value_t initial_value, uint32_t num_consumers,
                               const hsa_agent_t* consumers, hsa_signal_t* signal) {
  return tables().core.hsa_signal_create_fn(initial_value, num_consumers, consumers, signal);
}
hsa_status_t hsa_signal_destroy(hsa_signal_t signal) {
  return tables().core.hsa_signal_destroy_fn(signal);
}
hsa_signal_value_t hsa_signal_load_relaxed(hsa_signal_t signal) {
  return tables().core.hsa_signal_load_relaxed_fn(signal);
}
hsa_signal_value_t hsa_signal_load_scacquire(hsa_signal_t signal) {
  return tables().core.hsa_signal_load_scacquire_fn(signal);
}
void hsa_signal_store_relaxed(hsa_signal_t signal, hsa_signal_value_t value) {
  tables().core.hsa_signal_store_relaxed_fn(signal, value);
}
void hsa_signal_store_screlease(hsa_signal_t signal, hsa_signal_value_t value) {
  tables().core.hsa_signal_store_screlease_fn(signal, value);
}
void hsa_signal_subtract_relaxed(hsa_signal_t signal, hsa_signal_value_t value) {
  tables().core.hsa_signal_subtract_relaxed_fn(signal, value);
}
void hsa_signal_subtract_screlease(hsa_signal_t signal, hsa_signal_value_t value) {
  tables().core.hsa_signal_subtract_screlease_fn(signal, value);
}
hsa_signal_value_t hsa_signal_wait_relaxed(hsa_signal_t signal, hsa_signal_condition_t condition,
                                           hsa_signal_value_t compare_value, uint64_t timeout_hint,
                                           hsa_wait_state_t wait_state_hint) {
  return tables().core.hsa_signal_wait_relaxed_fn(signal, condition, compare_value, timeout_hint,
                                                  wait_state_hint);
}
hsa_signal_value_t hsa_signal_wait_scacquire(hsa_signal_t signal, hsa_signal_condition_t condition,
                                             hsa_signal_value_t compare_value,
                                             uint64_t timeout_hint,
                                             hsa_wait_state_t wait_state_hint) {
  return tables().core.hsa_signal_wait_scacquire_fn(signal, condition, compare_value, timeout_hint,
                                                    wait_state_hint);
}
hsa_status_t hsa_queue_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                              void (*callback)(hsa_status_t, hsa_queue_t*, void*), void* data,
                              uint32_t private_segment_size, uint32_t group_segment_size,
                              hsa_queue_t** queue) {
  return tables().core.hsa_queue_create_fn(agent, size, type, callback, data, private_segment_size,
                                           group_segment_size, queue);
}
hsa_status_t hsa_queue_destroy(hsa_queue_t* queue) {
  return tables().core.hsa_queue_destroy_fn(queue);
}
uint64_t hsa_queue_load_write_index_relaxed(const hsa_queue_t* queue) {
  return tables().core.hsa_queue_load_write_index_relaxed_fn(queue);
}
uint64_t hsa_queue_load_write_index_scacquire(const hsa_queue_t* queue) {
  return tables().core.hsa_queue_load_write_index_scacquire_fn(queue);
}
uint64_t hsa_queue_add_write_index_relaxed(const hsa_queue_t* queue, uint64_t value) {
  return tables().core.hsa_queue_add_write_index_relaxed_fn(queue, value);
}
uint64_t hsa_queue_add_write_index_scacq_screl(const hsa_queue_t* queue, uint64_t value) {
  return tables().core.hsa_queue_add_write_index_scacq_screl_fn(queue, value);
}
uint64_t hsa_queue_load_read_index_relaxed(const hsa_queue_t* queue) {
  return tables().core.hsa_queue_load_read_index_relaxed_fn(queue);
}
uint64_t hsa_queue_load_read_index_scacquire(const hsa_queue_t* queue) {
  return tables().core.hsa_queue_load_read_index_scacquire_fn(queue);
}
hsa_status_t hsa_code_object_reader_create_from_file(hsa_file_t file,
                                                     hsa_code_object_reader_t* reader) {
  return tables().core.hsa_code_object_reader_create_from_file_fn(file, reader);
}
hsa_status_t hsa_code_object_reader_create_from_memory(const void* code_object, size_t size,
                                                       hsa_code_object_reader_t* reader) {
  return tables().core.hsa_code_object_reader_create_from_memory_fn(code_object, size, reader);
}
hsa_status_t hsa_code_object_reader_destroy(hsa_code_object_reader_t reader) {
  return tables().core.hsa_code_object_reader_destroy_fn(reader);
}
hsa_status_t hsa_executable_create_alt(hsa_profile_t profile,
                                       hsa_default_float_rounding_mode_t rounding,
                                       const char* options, hsa_executable_t* executable) {
  return tables().core.hsa_executable_create_alt_fn(profile, rounding, options, executable);
}
hsa_status_t hsa_executable_load_agent_code_object(hsa_executable_t executable, hsa_agent_t agent,
                                                   hsa_code_object_reader_t reader,
                                                   const char* options,
                                                   hsa_loaded_code_object_t* loaded) {
  return tables().core.hsa_executable_load_agent_code_object_fn(executable, agent, reader, options,
                                                                loaded);
}
hsa_status_t hsa_executable_freeze(hsa_executable_t executable, const char* options) {
  return tables().core.hsa_executable_freeze_fn(executable, options);
}
hsa_status_t hsa_executable_destroy(hsa_executable_t executable) {
  return tables().core.hsa_executable_destroy_fn(executable);
}
hsa_status_t hsa_executable_iterate_symbols(
    hsa_executable_t executable,
    hsa_status_t (*callback)(hsa_executable_t, hsa_executable_symbol_t, void*), void* data) {
  return tables().core.hsa_executable_iterate_symbols_fn(executable, callback, data);
}
hsa_status_t hsa_executable_symbol_get_info(hsa_executable_symbol_t symbol,
                                            hsa_executable_symbol_info_t attribute, void* value) {
  return tables().core.hsa_executable_symbol_get_info_fn(symbol, attribute, value);
}
hsa_status_t hsa_amd_signal_async_handler(hsa_signal_t signal, hsa_signal_condition_t condition,
                                          hsa_signal_value_t value, hsa_amd_signal_handler handler,
                                          void* arg) {
  return tables().amd_ext.hsa_amd_signal_async_handler_fn(signal, condition, value, handler, arg);
}
hsa_status_t hsa_amd_profiling_set_profiler_enabled(hsa_queue_t* queue, int enable) {
  return tables().amd_ext.hsa_amd_profiling_set_profiler_enabled_fn(queue, enable);
}
hsa_status_t hsa_amd_profiling_get_dispatch_time(hsa_agent_t agent, hsa_signal_t signal,
                                                 hsa_amd_profiling_dispatch_time_t* time) {
  return tables().amd_ext.hsa_amd_profiling_get_dispatch_time_fn(agent, signal, time);
}
hsa_status_t hsa_amd_profiling_async_copy_enable(bool enable) {
  return tables().amd_ext.hsa_amd_profiling_async_copy_enable_fn(enable);
}
hsa_status_t hsa_amd_profiling_get_async_copy_time(hsa_signal_t signal,
                                                   hsa_amd_profiling_async_copy_time_t* time) {
  return tables().amd_ext.hsa_amd_profiling_get_async_copy_time_fn(signal, time);
}
hsa_status_t hsa_amd_profiling_convert_tick_to_system_domain(hsa_agent_t agent, uint64_t agent_tick,
                                                             uint64_t* system_tick) {
  return tables().amd_ext.hsa_amd_profiling_convert_tick_to_system_domain_fn(agent, agent_tick,
                                                                             system_tick);
}
hsa_status_t hsa_amd_memory_async_copy(void* dst, hsa_agent_t dst_agent, const void* src,
                                       hsa_agent_t src_agent, size_t size, uint32_t num_dep_signals,
                                       const hsa_signal_t* dep_signals,
                                       hsa_signal_t completion_signal) {
  return tables().amd_ext.hsa_amd_memory_async_copy_fn(
      dst, dst_agent, src, src_agent, size, num_dep_signals, dep_signals, completion_signal);
}

}  // extern "C"
