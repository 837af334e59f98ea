// A roctracer client of the CUDA domains (rocprof-mpi/cuda_domains.h), as a tool written
// against the roctracer API would be: callbacks on cudaLaunchKernel, API and GPU-work records
// into its own pool. Runs known work on 2 streams and a graph, and checks what it was told.
//   cuda_roctracer_client [KERNELS_PER_STREAM [node|graph]]   exit 0 when every check holds
// `graph`: expect graph-level tracing (ROCPROF_MPI_CUDA_GRAPH_TRACE=graph), one record per
// graph launch instead of one per kernel of the graph.
#include <cuda_runtime.h>
#include <cupti.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>

#include <rocprof-mpi/cuda_domains.h>
#include <roctracer/roctracer.h>

namespace {

// The roctracer functions take activity_domain_t; the CUDA domains are numbered past it.
constexpr activity_domain_t domain(int id) { return static_cast<activity_domain_t>(id); }

constexpr int kStreams = 2;
constexpr int kGraphKernels = 3;  // kernels captured into a graph
constexpr int kGraphLaunches = 2;
constexpr int kElements = 1 << 16;

__global__ void scale(float* data, int count, float factor) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) data[i] *= factor;
}

struct Seen {
  std::atomic<int> launch_enter{0};
  std::atomic<int> launch_exit{0};
  std::atomic<int> callback_mismatch{0};
  std::mutex mutex;  // the rest is filled by the pool's delivery thread
  std::set<unsigned long long> launch_calls;
  std::set<unsigned long long> graph_calls;
  std::set<unsigned long long> kernel_launches;
  std::set<unsigned long long> graph_launches;  // correlation ids of GRAPH_LAUNCH records
  int graph_records = 0;
  int kernels = 0;
  int copies = 0;
  int memsets = 0;
  int unnamed_kernels = 0;
  int bad_times = 0;
  int copy_bytes_wrong = 0;
};
Seen g_seen;

void on_call(uint32_t domain, uint32_t op, const void* data, void* /*arg*/) {
  if (domain != ROCPROF_MPI_DOMAIN_CUDA_RUNTIME_API ||
      op != CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000)
    return;
  const auto* call = static_cast<const rocprof_mpi_cuda_api_data_t*>(data);
  const auto* cupti = static_cast<const CUpti_CallbackData*>(call->cupti_callback_data);
  if (cupti == nullptr || cupti->correlationId != call->correlation_id)
    g_seen.callback_mismatch.fetch_add(1);
  (call->phase == ACTIVITY_API_PHASE_ENTER ? g_seen.launch_enter : g_seen.launch_exit).fetch_add(1);
}

void on_records(const char* begin, const char* end, void* /*arg*/) {
  const std::lock_guard lock(g_seen.mutex);
  for (auto* record = reinterpret_cast<const activity_record_t*>(begin);
       record < reinterpret_cast<const activity_record_t*>(end); ++record) {
    if (record->domain == ACTIVITY_DOMAIN_EXT_API) continue;
    if (record->begin_ns == 0 || record->end_ns < record->begin_ns) ++g_seen.bad_times;
    if (record->domain == ROCPROF_MPI_DOMAIN_CUDA_RUNTIME_API &&
        record->op == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000)
      g_seen.launch_calls.insert(record->correlation_id);
    if (record->domain == ROCPROF_MPI_DOMAIN_CUDA_RUNTIME_API &&
        record->op == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000)
      g_seen.graph_calls.insert(record->correlation_id);
    if (record->domain != ROCPROF_MPI_DOMAIN_CUDA_OPS) continue;
    switch (record->op) {
      case ROCPROF_MPI_CUDA_OP_KERNEL:
        ++g_seen.kernels;
        g_seen.kernel_launches.insert(record->correlation_id);
        if (record->kernel_name == nullptr || std::strstr(record->kernel_name, "scale") == nullptr)
          ++g_seen.unnamed_kernels;
        break;
      case ROCPROF_MPI_CUDA_OP_MEMCPY:
        ++g_seen.copies;
        if (record->bytes != kElements * sizeof(float)) ++g_seen.copy_bytes_wrong;
        break;
      case ROCPROF_MPI_CUDA_OP_MEMSET:
        ++g_seen.memsets;
        break;
      case ROCPROF_MPI_CUDA_OP_GRAPH_LAUNCH:
        ++g_seen.graph_records;
        g_seen.graph_launches.insert(record->correlation_id);
        break;
      default:
        break;
    }
  }
}

int failures = 0;
void check(bool condition, const std::string& what) {
  std::printf("%s %s\n", condition ? "ok  " : "FAIL", what.c_str());
  if (!condition) ++failures;
}

bool status_ok(roctracer_status_t status, const char* what) {
  if (status == ROCTRACER_STATUS_SUCCESS) return true;
  std::printf("FAIL %s: %s\n", what, roctracer_error_string());
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  const int kernels_per_stream = argc > 1 ? std::atoi(argv[1]) : 20;
  const bool whole_graphs = argc > 2 && std::strcmp(argv[2], "graph") == 0;
  const char* name = roctracer_op_string(ROCPROF_MPI_DOMAIN_CUDA_RUNTIME_API,
                                         CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 0);
  check(name != nullptr && std::strcmp(name, "cudaLaunchKernel") == 0,
        std::string("op name of cudaLaunchKernel: ") + (name ? name : "(null)"));

  roctracer_properties_t properties{};
  properties.buffer_size = 1 << 20;
  properties.buffer_callback_fun = on_records;
  if (!status_ok(roctracer_open_pool(&properties), "open pool") ||
      !status_ok(roctracer_enable_domain_callback(domain(ROCPROF_MPI_DOMAIN_CUDA_RUNTIME_API),
                                                  on_call, nullptr),
                 "callbacks on the CUDA runtime API") ||
      !status_ok(roctracer_enable_domain_activity(domain(ROCPROF_MPI_DOMAIN_CUDA_RUNTIME_API)),
                 "records of the CUDA runtime API") ||
      !status_ok(roctracer_enable_domain_activity(domain(ROCPROF_MPI_DOMAIN_CUDA_OPS)),
                 "records of GPU work"))
    return 1;

  float* device[kStreams] = {};
  float* host = nullptr;
  cudaStream_t streams[kStreams] = {};
  if (cudaMallocHost(&host, kElements * sizeof(float)) != cudaSuccess) {
    std::printf("FAIL cudaMallocHost\n");
    return 1;
  }
  for (int i = 0; i < kElements; ++i) host[i] = 1.0F;
  for (int s = 0; s < kStreams; ++s) {
    cudaStreamCreate(&streams[s]);
    cudaMalloc(&device[s], kElements * sizeof(float));
    cudaMemsetAsync(device[s], 0, kElements * sizeof(float), streams[s]);
    cudaMemcpyAsync(device[s], host, kElements * sizeof(float), cudaMemcpyHostToDevice, streams[s]);
    for (int k = 0; k < kernels_per_stream; ++k)
      scale<<<kElements / 256, 256, 0, streams[s]>>>(device[s], kElements, 1.0001F);
    cudaMemcpyAsync(host, device[s], kElements * sizeof(float), cudaMemcpyDeviceToHost, streams[s]);
  }
  // A graph of kernels, captured on stream 0 and launched twice: each of its kernels is
  // recorded, tied to the cudaGraphLaunch that ran it.
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t runnable = nullptr;
  cudaStreamBeginCapture(streams[0], cudaStreamCaptureModeGlobal);
  for (int k = 0; k < kGraphKernels; ++k)
    scale<<<kElements / 256, 256, 0, streams[0]>>>(device[0], kElements, 1.0001F);
  cudaStreamEndCapture(streams[0], &graph);
  const bool graph_ready =
      graph != nullptr && cudaGraphInstantiate(&runnable, graph, 0) == cudaSuccess;
  check(graph_ready, "graph captured and instantiated");
  for (int g = 0; graph_ready && g < kGraphLaunches; ++g) cudaGraphLaunch(runnable, streams[0]);
  const cudaError_t synced = cudaDeviceSynchronize();
  check(synced == cudaSuccess, std::string("GPU work ran: ") + cudaGetErrorString(synced));
  status_ok(roctracer_flush_activity(), "flush");
  roctracer_disable_domain_callback(domain(ROCPROF_MPI_DOMAIN_CUDA_RUNTIME_API));
  roctracer_disable_domain_activity(domain(ROCPROF_MPI_DOMAIN_CUDA_RUNTIME_API));
  roctracer_disable_domain_activity(domain(ROCPROF_MPI_DOMAIN_CUDA_OPS));

  const int launched = kStreams * kernels_per_stream;
  // Node-level: each kernel a graph ran; graph-level: one record per launch, no kernels.
  const int graph_kernels = whole_graphs ? 0 : kGraphKernels * kGraphLaunches;
  const int graph_records = whole_graphs ? kGraphLaunches : 0;
  const std::lock_guard lock(g_seen.mutex);
  // Captured launches are calls too (their kernels run only inside the graph).
  const int launch_calls = launched + kGraphKernels;
  check(g_seen.launch_enter == launch_calls && g_seen.launch_exit == launch_calls,
        "cudaLaunchKernel callbacks: " + std::to_string(g_seen.launch_enter) + " enter, " +
            std::to_string(g_seen.launch_exit) + " exit of " + std::to_string(launch_calls));
  check(g_seen.callback_mismatch == 0, "callback data carries CUPTI's correlation id");
  check(g_seen.kernels == launched + graph_kernels,
        "kernel records: " + std::to_string(g_seen.kernels) + " of " +
            std::to_string(launched + graph_kernels));
  check(g_seen.graph_records == graph_records,
        "graph launch records: " + std::to_string(g_seen.graph_records) + " of " +
            std::to_string(graph_records));
  check(g_seen.copies == 2 * kStreams && g_seen.copy_bytes_wrong == 0,
        "copy records with their bytes: " + std::to_string(g_seen.copies));
  check(g_seen.memsets == kStreams, "memset records: " + std::to_string(g_seen.memsets));
  check(g_seen.unnamed_kernels == 0, "every kernel record named (scale)");
  check(g_seen.bad_times == 0, "every record has begin <= end");
  int orphans = 0;
  int from_graphs = 0;
  for (const unsigned long long id : g_seen.kernel_launches) {
    from_graphs += g_seen.graph_calls.count(id);
    orphans += g_seen.launch_calls.count(id) + g_seen.graph_calls.count(id) == 0 ? 1 : 0;
  }
  check(g_seen.launch_calls.size() == static_cast<std::size_t>(launch_calls) && orphans == 0,
        "every kernel record has its cudaLaunchKernel or cudaGraphLaunch record (" +
            std::to_string(orphans) + " without)");
  int graph_orphans = 0;
  for (const unsigned long long id : g_seen.graph_launches)
    graph_orphans += g_seen.graph_calls.count(id) == 0 ? 1 : 0;
  check(g_seen.graph_calls.size() == kGraphLaunches && graph_orphans == 0 &&
            from_graphs == (whole_graphs ? 0 : kGraphLaunches),
        std::to_string(g_seen.graph_calls.size()) + " cudaGraphLaunch calls, " +
            std::to_string(from_graphs) + " of them with kernel records, " +
            std::to_string(graph_orphans) + " graph records without their call");
  std::printf("%s\n", failures == 0 ? "PASSED" : "FAILED");
  return failures == 0 ? 0 : 1;
}
