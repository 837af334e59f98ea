#include "lib/runtime/cuda/cuda_tracer.hpp"

#include <cupti.h>
#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string_view>
#include <unordered_set>

#include <fmt/format.h>
#include <rocprof-mpi/cuda_domains.h>

#include "lib/core/api_dispatch.hpp"
#include "lib/core/clock.hpp"
#include "lib/core/record_activity.hpp"
#include "lib/core/tracer_state.hpp"
#include "lib/runtime/cuda/cuda_activity.hpp"
#include "lib/runtime/cuda/cuda_api_args.hpp"
#include "lib/runtime/cuda/cupti_library.hpp"

namespace rocprof::runtime::cuda {
namespace {

// Large enough that CUPTI's thread hands over a few buffers a second under heavy launching.
constexpr std::size_t kBufferBytes = std::size_t{8} << 20;
constexpr std::size_t kBufferAlignment = 8;

const CuptiLibrary* g_cupti = nullptr;
std::atomic<const rocprof_mpi_cuda_sink_t*> g_sink{nullptr};
CUpti_SubscriberHandle g_subscriber = nullptr;
std::atomic<std::uint64_t> g_dropped{0};
std::atomic<bool> g_running{false};
// Set once a roctracer client enabled a CUDA domain: until then the recorder alone listens,
// and each call skips the client lookups (four callbacks per kernel launch).
std::atomic<bool> g_clients{false};
std::mutex g_start_mutex;

std::uint64_t CUPTIAPI trace_clock() { return core::now_ns(); }

// Kernel names handed to roctracer clients must outlive CUPTI's buffer: kept once each.
const char* lasting_kernel_name(const char* name) {
  static std::mutex mutex;
  static auto* names = new std::unordered_set<std::string>();  // never destroyed
  if (name == nullptr) return nullptr;
  const std::lock_guard lock(mutex);
  return names->emplace(name).first->c_str();
}

// A roctracer client's record of GPU work, when ops of CUDA_OPS are routed to a pool.
void deliver_to_clients(const ConvertedActivity& work) noexcept {
  const format::ActivityRow& row = work.row;
  if (!g_clients.load(std::memory_order_relaxed) || !core::tracing_running() ||
      core::activity_route(ROCPROF_MPI_DOMAIN_CUDA_OPS, row.op) == nullptr)
    return;
  const char* kernel = nullptr;
  if (work.kernel_name != nullptr) {
    try {
      kernel = lasting_kernel_name(work.kernel_name);
    } catch (...) {
      return;  // out of memory: the record is not delivered
    }
  }
  core::record_activity(core::this_thread_state(), ROCPROF_MPI_DOMAIN_CUDA_OPS, row.op, nullptr,
                        [&](activity_record_t& record, auto&) {
                          record.kind = row.kind;
                          record.correlation_id = row.correlation_id;
                          record.begin_ns = row.begin_ns;
                          record.end_ns = row.end_ns;
                          record.device_id = row.device_id;
                          record.queue_id = row.queue_id;
                          if (row.op == ROCPROF_MPI_CUDA_OP_KERNEL)
                            record.kernel_name = kernel;
                          else
                            record.bytes = row.bytes;
                        });
}

void CUPTIAPI on_buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  // CUPTI's thread, not the application's hot path: allocating here is fine.
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlignment, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI on_buffer_completed(CUcontext context, uint32_t stream, uint8_t* buffer,
                                  size_t /*size*/, size_t valid) {
  CUpti_Activity* record = nullptr;
  ConvertedActivity converted;
  const rocprof_mpi_cuda_sink_t* sink = g_sink.load(std::memory_order_acquire);
  while (g_cupti->next_record(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (!convert_activity(*record, converted)) continue;
    // Work a forced flush handed over unfinished has no times: nothing to place.
    if (converted.row.begin_ns == 0 || converted.row.end_ns < converted.row.begin_ns) continue;
    if (sink != nullptr) sink->activity(&converted.row, converted.kernel_name);
    deliver_to_clients(converted);
  }
  std::size_t dropped = 0;
  if (g_cupti->dropped_records(context, stream, &dropped) == CUPTI_SUCCESS && dropped > 0)
    g_dropped.fetch_add(dropped, std::memory_order_relaxed);
  std::free(buffer);  // NOLINT(cppcoreguidelines-no-malloc): from on_buffer_requested
}

std::uint32_t our_domain(CUpti_CallbackDomain domain) noexcept {
  return domain == CUPTI_CB_DOMAIN_RUNTIME_API ? ROCPROF_MPI_DOMAIN_CUDA_RUNTIME_API
                                               : ROCPROF_MPI_DOMAIN_CUDA_DRIVER_API;
}

// The call as a roctracer client sees it: callback at enter; at exit the shared API-call
// dispatch gives the exit callback and the record, with CUPTI's correlation id.
void report_to_clients(std::uint32_t domain, CUpti_CallbackId cbid, const CUpti_CallbackData& info,
                       std::uint64_t begin_ns) noexcept {
  if (!g_clients.load(std::memory_order_relaxed) || !core::tracing_running() ||
      cbid >= core::kMaxOpsPerDomain || core::this_thread_state().suspended)
    return;
  rocprof_mpi_cuda_api_data_t data{};
  data.cupti_callback_data = &info;
  if (info.callbackSite == CUPTI_API_EXIT) {
    core::exit_api_call(core::ApiCallScope{domain, cbid, info.correlationId, begin_ns, true,
                                           core::current_api_call()},
                        data);
    return;
  }
  if (const core::CallbackEntry* callback = core::callback_table().find(domain, cbid)) {
    data.correlation_id = info.correlationId;
    data.phase = ACTIVITY_API_PHASE_ENTER;
    callback->function(domain, cbid, &data, callback->arg);
  }
}

void record_for_recorder(const rocprof_mpi_cuda_sink_t& sink, std::uint32_t domain,
                         CUpti_CallbackId cbid, const CUpti_CallbackData& info,
                         std::uint64_t begin_ns, std::uint64_t end_ns) noexcept {
  format::ApiCallRow row;
  std::memset(&row, 0, sizeof row);
  row.begin_ns = begin_ns;
  row.end_ns = end_ns;
  row.correlation_id = info.correlationId;
  row.op = cbid;
  row.domain = static_cast<std::uint8_t>(domain);
  row.external_id = core::innermost_external_id(core::this_thread_state());
  if (domain == ROCPROF_MPI_DOMAIN_CUDA_RUNTIME_API)
    decode_runtime_args(cbid, info.functionParams, row);
  sink.api_call(&row, info.symbolName);
}

void CUPTIAPI on_callback(void* /*user*/, CUpti_CallbackDomain cupti_domain, CUpti_CallbackId cbid,
                          const void* data) {
  if (cupti_domain == CUPTI_CB_DOMAIN_RESOURCE) {
    // A context going away (cudaDeviceReset) takes its unread records with it.
    if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) g_cupti->flush_all(0);
    return;
  }
  const auto& info = *static_cast<const CUpti_CallbackData*>(data);
  const std::uint32_t domain = our_domain(cupti_domain);
  if (info.callbackSite == CUPTI_API_ENTER) {
    report_to_clients(domain, cbid, info, 0);
    *info.correlationData = core::now_ns();  // CUPTI keeps it for this call's exit
    return;
  }
  const std::uint64_t begin_ns = *info.correlationData;
  const std::uint64_t end_ns = core::now_ns();
  if (const rocprof_mpi_cuda_sink_t* sink = g_sink.load(std::memory_order_acquire))
    record_for_recorder(*sink, domain, cbid, info, begin_ns, end_ns);
  report_to_clients(domain, cbid, info, begin_ns);
}

bool check(CUptiResult result, const char* what, std::string& error) {
  if (result == CUPTI_SUCCESS) return true;
  error = fmt::format("{}: {}", what, g_cupti->describe(result));
  return false;
}

// ROCPROF_MPI_CUDA_GRAPH_TRACE: "node" (each kernel, copy and memset of a graph, the default)
// or "graph" (one record per graph launch, cheaper for graphs of many small nodes).
bool read_graph_mode(bool& whole_graphs, std::string& error) {
  const char* mode = std::getenv("ROCPROF_MPI_CUDA_GRAPH_TRACE");  // NOLINT(concurrency-mt-unsafe)
  const std::string_view text = mode == nullptr ? "node" : mode;
  if (text != "node" && text != "graph") {
    error = fmt::format("ROCPROF_MPI_CUDA_GRAPH_TRACE='{}' must be node or graph", text);
    return false;
  }
  whole_graphs = text == "graph";
  return true;
}

bool subscribe(std::string& error) {
  bool whole_graphs = false;
  if (!read_graph_mode(whole_graphs, error)) return false;
  // CUPTI without a driver fails with an unhelpful error: say what is missing instead. The
  // application would load the driver anyway; this only does it earlier.
  if (dlopen("libcuda.so.1", RTLD_LAZY | RTLD_GLOBAL) == nullptr) {
    error = "no NVIDIA driver (libcuda.so.1) on this machine";
    return false;
  }
  g_cupti = load_cupti(error);
  if (g_cupti == nullptr) return false;
  // The clock first: records made before it would be on CUPTI's own (CLOCK_REALTIME).
  if (!check(g_cupti->register_timestamp(trace_clock), "cannot set CUPTI's clock", error) ||
      !check(g_cupti->register_buffers(on_buffer_requested, on_buffer_completed),
             "cannot give CUPTI its buffers", error) ||
      !check(g_cupti->subscribe(&g_subscriber, on_callback, nullptr),
             "cannot subscribe to CUPTI (is another CUDA profiler attached?)", error))
    return false;
  bool ok = check(g_cupti->enable_domain(1, g_subscriber, CUPTI_CB_DOMAIN_RUNTIME_API),
                  "cannot trace the CUDA runtime API", error) &&
            check(g_cupti->enable_domain(1, g_subscriber, CUPTI_CB_DOMAIN_DRIVER_API),
                  "cannot trace the CUDA driver API", error) &&
            check(g_cupti->enable_callback(1, g_subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                                           CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING),
                  "cannot follow CUDA contexts", error);
  for (const CUpti_ActivityKind kind :
       {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
        CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION})
    ok = ok && check(g_cupti->enable_activity(kind), "cannot enable CUPTI activity", error);
  if (whole_graphs)
    ok = ok && check(g_cupti->enable_activity(CUPTI_ACTIVITY_KIND_GRAPH_TRACE),
                     "cannot trace CUDA graphs as a whole", error);
  if (!ok) g_cupti->unsubscribe(g_subscriber);
  return ok;
}

}  // namespace

bool start_cuda_tracing(std::string& error) {
  if (g_running.load(std::memory_order_acquire)) return true;
  const std::lock_guard lock(g_start_mutex);
  if (g_running.load(std::memory_order_relaxed)) return true;
  if (!subscribe(error)) return false;
  g_running.store(true, std::memory_order_release);
  return true;
}

void serve_cuda_clients() noexcept { g_clients.store(true, std::memory_order_relaxed); }

void set_cuda_sink(const rocprof_mpi_cuda_sink_t* sink) noexcept {
  g_sink.store(sink, std::memory_order_release);
}

void flush_cuda_tracing() noexcept {
  if (g_running.load(std::memory_order_acquire))
    g_cupti->flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

void flush_completed_cuda_tracing() noexcept {
  if (g_running.load(std::memory_order_acquire)) g_cupti->flush_all(0);
}

std::uint64_t cuda_records_dropped() noexcept { return g_dropped.load(std::memory_order_relaxed); }

}  // namespace rocprof::runtime::cuda

extern "C" ROCTRACER_API roctracer_status_t
rocprof_mpi_cuda_record(const rocprof_mpi_cuda_sink_t* sink, char* error, size_t error_size) {
  using namespace rocprof::runtime::cuda;
  if (sink == nullptr || sink->api_call == nullptr || sink->activity == nullptr)
    return ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT;
  try {
    if (std::string why; !start_cuda_tracing(why)) {
      if (error != nullptr && error_size > 0)
        *fmt::format_to_n(error, error_size - 1, "{}", why).out = '\0';
      return ROCTRACER_STATUS_ERROR;
    }
  } catch (...) {
    return ROCTRACER_STATUS_ERROR_MEMORY_ALLOCATION;
  }
  set_cuda_sink(sink);
  return ROCTRACER_STATUS_SUCCESS;
}

extern "C" ROCTRACER_API void rocprof_mpi_cuda_flush(void) {
  rocprof::runtime::cuda::flush_cuda_tracing();
}

extern "C" ROCTRACER_API void rocprof_mpi_cuda_flush_completed(void) {
  rocprof::runtime::cuda::flush_completed_cuda_tracing();
}

extern "C" ROCTRACER_API uint64_t rocprof_mpi_cuda_dropped_records(void) {
  return rocprof::runtime::cuda::cuda_records_dropped();
}
