#include "lib/runtime/cuda/cuda_tracer.hpp"

#include <cupti.h>
#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>
#include <rocprof-mpi/cuda_domains.h>

#include "lib/runtime/cuda/cuda_activity.hpp"
#include "lib/runtime/cuda/cuda_api_args.hpp"
#include "lib/runtime/cuda/cupti_library.hpp"

namespace rocprof::runtime::cuda {
namespace {

// Large enough that CUPTI's thread hands over a few buffers a second under heavy launching.
constexpr std::size_t kBufferBytes = std::size_t{8} << 20;
constexpr std::size_t kBufferAlignment = 8;

const CuptiLibrary* g_cupti = nullptr;
CudaSink g_sink;
CUpti_SubscriberHandle g_subscriber = nullptr;
std::atomic<std::uint64_t> g_dropped{0};
std::atomic<bool> g_running{false};

std::uint64_t CUPTIAPI trace_clock() { return g_sink.now(); }

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
  while (g_cupti->next_record(buffer, valid, &record) == CUPTI_SUCCESS)
    if (convert_activity(*record, converted)) g_sink.activity(converted.row, converted.kernel_name);
  std::size_t dropped = 0;
  if (g_cupti->dropped_records(context, stream, &dropped) == CUPTI_SUCCESS && dropped > 0)
    g_dropped.fetch_add(dropped, std::memory_order_relaxed);
  std::free(buffer);  // NOLINT(cppcoreguidelines-no-malloc): from on_buffer_requested
}

void CUPTIAPI on_callback(void* /*user*/, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                          const void* data) {
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    // A context going away (cudaDeviceReset) takes its unread records with it.
    if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) g_cupti->flush_all(0);
    return;
  }
  const auto& info = *static_cast<const CUpti_CallbackData*>(data);
  if (info.callbackSite == CUPTI_API_ENTER) {
    *info.correlationData = g_sink.now();  // CUPTI keeps it for this call's exit
    return;
  }
  format::ApiCallRow row;
  std::memset(&row, 0, sizeof row);
  row.begin_ns = *info.correlationData;
  row.end_ns = g_sink.now();
  row.correlation_id = info.correlationId;
  row.op = cbid;
  row.external_id = g_sink.external_id();
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    row.domain = ROCPROF_MPI_DOMAIN_CUDA_RUNTIME_API;
    decode_runtime_args(cbid, info.functionParams, row);
  } else {
    row.domain = ROCPROF_MPI_DOMAIN_CUDA_DRIVER_API;
  }
  g_sink.api_call(row, info.symbolName);
}

bool check(CUptiResult result, const char* what, std::string& error) {
  if (result == CUPTI_SUCCESS) return true;
  error = fmt::format("{}: {}", what, g_cupti->describe(result));
  return false;
}

}  // namespace

bool start_cuda_tracing(const CudaSink& sink, std::string& error) {
  if (g_running.load()) return true;
  // CUPTI without a driver fails with an unhelpful error: say what is missing instead. The
  // application would load the driver anyway; this only does it earlier.
  if (dlopen("libcuda.so.1", RTLD_LAZY | RTLD_GLOBAL) == nullptr) {
    error = "no NVIDIA driver (libcuda.so.1) on this machine";
    return false;
  }
  g_cupti = load_cupti(error);
  if (g_cupti == nullptr) return false;
  g_sink = sink;
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
  if (!ok) {
    g_cupti->unsubscribe(g_subscriber);
    return false;
  }
  g_running.store(true);
  return true;
}

void flush_cuda_tracing() noexcept {
  if (g_running.load()) g_cupti->flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

std::uint64_t cuda_records_dropped() noexcept { return g_dropped.load(std::memory_order_relaxed); }

const char* cuda_op_string(std::uint32_t domain, std::uint32_t op) noexcept {
  if (domain == ROCPROF_MPI_DOMAIN_CUDA_OPS) return cuda_op_name(op);
  const CUpti_CallbackDomain cupti_domain =
      domain == ROCPROF_MPI_DOMAIN_CUDA_RUNTIME_API  ? CUPTI_CB_DOMAIN_RUNTIME_API
      : domain == ROCPROF_MPI_DOMAIN_CUDA_DRIVER_API ? CUPTI_CB_DOMAIN_DRIVER_API
                                                     : CUPTI_CB_DOMAIN_INVALID;
  const char* name = nullptr;
  if (g_cupti == nullptr || cupti_domain == CUPTI_CB_DOMAIN_INVALID ||
      g_cupti->callback_name(cupti_domain, op, &name) != CUPTI_SUCCESS)
    return nullptr;
  return name;
}

}  // namespace rocprof::runtime::cuda
