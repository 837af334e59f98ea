#include "lib/runtime/hsa/hsa_ops.hpp"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>

#include <fmt/format.h>
#include <roctracer/roctracer_hsa.h>

#include "lib/core/api_dispatch.hpp"
#include "lib/core/record_activity.hpp"
#include "lib/format/records.hpp"

namespace rocprof::runtime::hsa {
namespace {

// The runtime's functions this needs (its own, not the HSA_API wrappers: our calls are not
// the application's).
struct Runtime {
  decltype(hsa_queue_create)* queue_create = nullptr;
  decltype(hsa_signal_create)* signal_create = nullptr;
  decltype(hsa_signal_destroy)* signal_destroy = nullptr;
  decltype(hsa_signal_subtract_screlease)* signal_subtract = nullptr;
  decltype(hsa_system_get_info)* system_get_info = nullptr;
  decltype(hsa_amd_signal_async_handler)* async_handler = nullptr;
  decltype(hsa_amd_queue_intercept_create)* intercept_create = nullptr;
  decltype(hsa_amd_queue_intercept_register)* intercept_register = nullptr;
  decltype(hsa_amd_profiling_set_profiler_enabled)* set_profiler_enabled = nullptr;
  decltype(hsa_amd_profiling_get_dispatch_time)* dispatch_time = nullptr;
  decltype(hsa_amd_profiling_convert_tick_to_system_domain)* to_system = nullptr;
  decltype(hsa_amd_profiling_async_copy_enable)* copy_profiling = nullptr;
  decltype(hsa_amd_profiling_get_async_copy_time)* copy_time = nullptr;
  decltype(hsa_amd_memory_async_copy)* async_copy = nullptr;
  // Optional: kernel names by kernel object, learnt as executables are frozen.
  decltype(hsa_executable_freeze)* executable_freeze = nullptr;
  decltype(hsa_executable_iterate_symbols)* iterate_symbols = nullptr;
  decltype(hsa_executable_symbol_get_info)* symbol_info = nullptr;
  std::uint64_t frequency = 0;  // system timestamps per second
};
Runtime g_runtime;

// Kernel names by kernel object (the address a dispatch packet carries). Read when a
// dispatch completes, on the runtime's handler thread; written when an executable is frozen.
struct KernelNames {
  std::mutex mutex;
  std::unordered_map<std::uint64_t, std::string> by_object;
};
KernelNames& kernel_names() {
  static auto* names = new KernelNames;  // dispatches may complete during exit
  return *names;
}
std::atomic<bool> g_copy_profiling{false};

// System-domain ticks to ns on the host clock.
std::uint64_t system_ns(std::uint64_t ticks) {
  const std::uint64_t frequency = g_runtime.frequency;
  if (frequency == 1'000'000'000 || frequency == 0) return ticks;
  return static_cast<std::uint64_t>(static_cast<long double>(ticks) * 1e9L /
                                    static_cast<long double>(frequency));
}

bool recorded(std::uint32_t op) {
  return core::tracing_running() && core::activity_route(ACTIVITY_DOMAIN_HSA_OPS, op) != nullptr;
}

// An operation in flight: the signal that tells us it completed, and the application's.
struct InFlight {
  hsa_signal_t ours{};
  hsa_signal_t theirs{};
  hsa_agent_t agent{};
  std::uint64_t queue_id = 0;
  std::uint64_t correlation_id = 0;
  std::uint64_t bytes = 0;
  std::uint64_t kernel_object = 0;
};

// The operation is done on our signal: the application's signal is decremented as the
// hardware would have, ours is released.
void complete(InFlight& work) {
  if (work.theirs.handle != 0) g_runtime.signal_subtract(work.theirs, 1);
  g_runtime.signal_destroy(work.ours);
  delete &work;  // NOLINT(cppcoreguidelines-owning-memory): made in the submitting call
}

void record(std::uint32_t op, const InFlight& work, std::uint64_t begin, std::uint64_t end) {
  core::ThreadState& state = core::this_thread_state();
  std::string name;
  if (op == HSA_OP_ID_DISPATCH) {
    KernelNames& names = kernel_names();
    const std::lock_guard lock(names.mutex);
    if (const auto found = names.by_object.find(work.kernel_object); found != names.by_object.end())
      name = found->second;
  }
  // A kernel whose executable was frozen before the tool came: by its address, which the
  // merge names from the code objects the recorder saw.
  if (op == HSA_OP_ID_DISPATCH && name.empty() && work.kernel_object != 0)
    name = fmt::format("{}{:x}", format::kKernelObjectNamePrefix, work.kernel_object);
  core::record_activity(state, ACTIVITY_DOMAIN_HSA_OPS, op, name.empty() ? nullptr : name.c_str(),
                        [&](activity_record_t& row, auto&) {
                          row.correlation_id = work.correlation_id;
                          row.begin_ns = begin;
                          row.end_ns = end;
                          row.device_id = 0;
                          row.queue_id = work.queue_id;
                          if (op == HSA_OP_ID_COPY) row.bytes = work.bytes;
                        });
}

bool on_dispatch_done(hsa_signal_value_t /*value*/, void* arg) {
  auto& work = *static_cast<InFlight*>(arg);
  hsa_amd_profiling_dispatch_time_t ticks{};
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  if (g_runtime.dispatch_time(work.agent, work.ours, &ticks) == HSA_STATUS_SUCCESS &&
      g_runtime.to_system(work.agent, ticks.start, &begin) == HSA_STATUS_SUCCESS &&
      g_runtime.to_system(work.agent, ticks.end, &end) == HSA_STATUS_SUCCESS)
    record(HSA_OP_ID_DISPATCH, work, system_ns(begin), system_ns(end));
  complete(work);
  return false;
}

bool on_copy_done(hsa_signal_value_t /*value*/, void* arg) {
  auto& work = *static_cast<InFlight*>(arg);
  hsa_amd_profiling_async_copy_time_t time{};
  if (g_runtime.copy_time(work.ours, &time) == HSA_STATUS_SUCCESS)
    record(HSA_OP_ID_COPY, work, system_ns(time.start), system_ns(time.end));
  complete(work);
  return false;
}

struct QueueInfo {
  hsa_agent_t agent;
  std::uint64_t queue_id;
};

// A replacement completion signal for work about to be submitted, watched by `done`.
InFlight* watch(hsa_signal_t theirs, hsa_agent_t agent, std::uint64_t queue_id,
                std::uint64_t bytes) {
  auto* work = new (std::nothrow) InFlight;
  if (work == nullptr) return nullptr;
  work->theirs = theirs;
  work->agent = agent;
  work->queue_id = queue_id;
  work->bytes = bytes;
  work->correlation_id = core::current_api_call();
  if (g_runtime.signal_create(1, 0, nullptr, &work->ours) != HSA_STATUS_SUCCESS) {
    delete work;  // NOLINT(cppcoreguidelines-owning-memory)
    return nullptr;
  }
  return work;
}

// At each doorbell of an intercepted queue, on the application's thread: each kernel
// dispatch gets a completion signal of ours, then the packets go on to the hardware queue.
void on_submit(const void* packets, std::uint64_t count, std::uint64_t /*user_index*/, void* data,
               hsa_amd_queue_intercept_packet_writer writer) {
  if (!recorded(HSA_OP_ID_DISPATCH)) {
    writer(packets, count);
    return;
  }
  const auto& queue = *static_cast<const QueueInfo*>(data);
  const auto* in = static_cast<const hsa_kernel_dispatch_packet_t*>(packets);
  for (std::uint64_t i = 0; i < count; ++i) {
    hsa_kernel_dispatch_packet_t packet = in[i];
    const auto type = static_cast<std::uint16_t>(packet.header & 0xFF);
    if (type == HSA_PACKET_TYPE_KERNEL_DISPATCH) {
      if (InFlight* work = watch(packet.completion_signal, queue.agent, queue.queue_id, 0)) {
        work->kernel_object = packet.kernel_object;
        packet.completion_signal = work->ours;
        if (g_runtime.async_handler(work->ours, HSA_SIGNAL_CONDITION_LT, 1, on_dispatch_done,
                                    work) != HSA_STATUS_SUCCESS) {
          packet.completion_signal = work->theirs;
          g_runtime.signal_destroy(work->ours);
          delete work;  // NOLINT(cppcoreguidelines-owning-memory)
        }
      }
    }
    writer(&packet, 1);
  }
}

hsa_status_t traced_queue_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                                 void (*callback)(hsa_status_t, hsa_queue_t*, void*), void* data,
                                 uint32_t private_segment_size, uint32_t group_segment_size,
                                 hsa_queue_t** queue) {
  const hsa_status_t made = g_runtime.intercept_create(
      agent, size, type, callback, data, private_segment_size, group_segment_size, queue);
  if (made != HSA_STATUS_SUCCESS)  // a queue the extension cannot make: an untimed one
    return g_runtime.queue_create(agent, size, type, callback, data, private_segment_size,
                                  group_segment_size, queue);
  auto* info = new (std::nothrow) QueueInfo{agent, (*queue)->id};  // lives with the queue
  if (info != nullptr) {
    g_runtime.set_profiler_enabled(*queue, 1);
    g_runtime.intercept_register(*queue, on_submit, info);
  }
  return made;
}

hsa_status_t traced_async_copy(void* dst, hsa_agent_t dst_agent, const void* src,
                               hsa_agent_t src_agent, size_t size, uint32_t num_dep_signals,
                               const hsa_signal_t* dep_signals, hsa_signal_t completion_signal) {
  InFlight* work = nullptr;
  if (recorded(HSA_OP_ID_COPY)) {
    if (!g_copy_profiling.exchange(true)) g_runtime.copy_profiling(true);
    work = watch(completion_signal, dst_agent, 0, size);
  }
  if (work == nullptr)
    return g_runtime.async_copy(dst, dst_agent, src, src_agent, size, num_dep_signals, dep_signals,
                                completion_signal);
  const hsa_status_t status = g_runtime.async_copy(dst, dst_agent, src, src_agent, size,
                                                   num_dep_signals, dep_signals, work->ours);
  if (status != HSA_STATUS_SUCCESS ||
      g_runtime.async_handler(work->ours, HSA_SIGNAL_CONDITION_LT, 1, on_copy_done, work) !=
          HSA_STATUS_SUCCESS) {
    g_runtime.signal_destroy(work->ours);
    delete work;  // NOLINT(cppcoreguidelines-owning-memory)
  }
  return status;
}

hsa_status_t learn_kernel(hsa_executable_t /*executable*/, hsa_executable_symbol_t symbol,
                          void* /*data*/) {
  hsa_symbol_kind_t kind{};
  std::uint32_t length = 0;
  std::uint64_t object = 0;
  if (g_runtime.symbol_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_TYPE, &kind) != HSA_STATUS_SUCCESS ||
      kind != HSA_SYMBOL_KIND_KERNEL ||
      g_runtime.symbol_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH, &length) !=
          HSA_STATUS_SUCCESS ||
      g_runtime.symbol_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &object) !=
          HSA_STATUS_SUCCESS)
    return HSA_STATUS_SUCCESS;
  std::string name(length, '\0');
  if (g_runtime.symbol_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_NAME, name.data()) !=
      HSA_STATUS_SUCCESS)
    return HSA_STATUS_SUCCESS;
  // AMDGPU code objects name a kernel's descriptor "NAME.kd".
  if (name.ends_with(".kd")) name.resize(name.size() - 3);
  KernelNames& names = kernel_names();
  const std::lock_guard lock(names.mutex);
  names.by_object[object] = std::move(name);
  return HSA_STATUS_SUCCESS;
}

// A frozen executable's kernels are known from here on: their names, by kernel object.
hsa_status_t traced_executable_freeze(hsa_executable_t executable, const char* options) {
  const hsa_status_t status = g_runtime.executable_freeze(executable, options);
  if (status == HSA_STATUS_SUCCESS) {
    try {
      g_runtime.iterate_symbols(executable, learn_kernel, nullptr);
    } catch (...) {  // no memory for a name: that kernel stays unnamed
    }
  }
  return status;
}

// Whether the runtime filled `entry` of a table of which it filled `bytes`.
template <typename Table, typename Entry>
bool filled(const Table& table, const Entry Table::*entry, std::size_t bytes) {
  const auto offset = static_cast<std::size_t>(reinterpret_cast<const char*>(&(table.*entry)) -
                                               reinterpret_cast<const char*>(&table));
  return offset + sizeof(void*) <= bytes && table.*entry != nullptr;
}

}  // namespace

void intercept_device_work(CoreApiTable& core, std::size_t core_bytes, AmdExtTable& amd_ext,
                           std::size_t amd_ext_bytes) noexcept {
  const bool complete =
      filled(core, &CoreApiTable::hsa_queue_create_fn, core_bytes) &&
      filled(core, &CoreApiTable::hsa_signal_create_fn, core_bytes) &&
      filled(core, &CoreApiTable::hsa_signal_destroy_fn, core_bytes) &&
      filled(core, &CoreApiTable::hsa_signal_subtract_screlease_fn, core_bytes) &&
      filled(core, &CoreApiTable::hsa_system_get_info_fn, core_bytes) &&
      filled(amd_ext, &AmdExtTable::hsa_amd_signal_async_handler_fn, amd_ext_bytes) &&
      filled(amd_ext, &AmdExtTable::hsa_amd_queue_intercept_create_fn, amd_ext_bytes) &&
      filled(amd_ext, &AmdExtTable::hsa_amd_queue_intercept_register_fn, amd_ext_bytes) &&
      filled(amd_ext, &AmdExtTable::hsa_amd_profiling_set_profiler_enabled_fn, amd_ext_bytes) &&
      filled(amd_ext, &AmdExtTable::hsa_amd_profiling_get_dispatch_time_fn, amd_ext_bytes) &&
      filled(amd_ext, &AmdExtTable::hsa_amd_profiling_convert_tick_to_system_domain_fn,
             amd_ext_bytes) &&
      filled(amd_ext, &AmdExtTable::hsa_amd_profiling_async_copy_enable_fn, amd_ext_bytes) &&
      filled(amd_ext, &AmdExtTable::hsa_amd_profiling_get_async_copy_time_fn, amd_ext_bytes) &&
      filled(amd_ext, &AmdExtTable::hsa_amd_memory_async_copy_fn, amd_ext_bytes);
  if (!complete) return;
  g_runtime.queue_create = core.hsa_queue_create_fn;
  g_runtime.signal_create = core.hsa_signal_create_fn;
  g_runtime.signal_destroy = core.hsa_signal_destroy_fn;
  g_runtime.signal_subtract = core.hsa_signal_subtract_screlease_fn;
  g_runtime.system_get_info = core.hsa_system_get_info_fn;
  g_runtime.async_handler = amd_ext.hsa_amd_signal_async_handler_fn;
  g_runtime.intercept_create = amd_ext.hsa_amd_queue_intercept_create_fn;
  g_runtime.intercept_register = amd_ext.hsa_amd_queue_intercept_register_fn;
  g_runtime.set_profiler_enabled = amd_ext.hsa_amd_profiling_set_profiler_enabled_fn;
  g_runtime.dispatch_time = amd_ext.hsa_amd_profiling_get_dispatch_time_fn;
  g_runtime.to_system = amd_ext.hsa_amd_profiling_convert_tick_to_system_domain_fn;
  g_runtime.copy_profiling = amd_ext.hsa_amd_profiling_async_copy_enable_fn;
  g_runtime.copy_time = amd_ext.hsa_amd_profiling_get_async_copy_time_fn;
  g_runtime.async_copy = amd_ext.hsa_amd_memory_async_copy_fn;
  if (g_runtime.system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &g_runtime.frequency) !=
      HSA_STATUS_SUCCESS)
    g_runtime.frequency = 0;
  core.hsa_queue_create_fn = traced_queue_create;
  amd_ext.hsa_amd_memory_async_copy_fn = traced_async_copy;
  if (filled(core, &CoreApiTable::hsa_executable_freeze_fn, core_bytes) &&
      filled(core, &CoreApiTable::hsa_executable_iterate_symbols_fn, core_bytes) &&
      filled(core, &CoreApiTable::hsa_executable_symbol_get_info_fn, core_bytes)) {
    g_runtime.executable_freeze = core.hsa_executable_freeze_fn;
    g_runtime.iterate_symbols = core.hsa_executable_iterate_symbols_fn;
    g_runtime.symbol_info = core.hsa_executable_symbol_get_info_fn;
    core.hsa_executable_freeze_fn = traced_executable_freeze;
  }
}

}  // namespace rocprof::runtime::hsa
