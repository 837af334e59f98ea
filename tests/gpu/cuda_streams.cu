// A CUDA program with known GPU work, for the CUDA backend's GPU test: one warm-up kernel,
// then on each of 2 streams one memset, one host-to-device copy, a long gate kernel (the
// stream stays busy while the host queues the rest, so no event waits for a launch), KERNELS
// kernels (each timed with cudaEvents) and one device-to-host copy. The kernels are small enough
// that the two streams' kernels run side by side, so an event pair times its kernel alone. Writes
// each kernel's event time (µs, per stream in launch order) to EVENTS_FILE. With a third argument
// it ends differently once the work is done: `sigterm` raises SIGTERM (the default action
// ends it), `reset` calls cudaDeviceReset and then returns.
// Usage: cuda_streams KERNELS EVENTS_FILE [sigterm|reset]
#include <cuda_runtime.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr int kStreams = 2;
constexpr int kElements = 1 << 20;  // per copy and memset
constexpr int kBlocks = 32;         // per kernel: a fraction of the GPU's SMs
constexpr int kThreads = 256;
constexpr int kRounds = 100000;  // some hundred µs per kernel

__global__ void scale(float* data, float factor, int rounds) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float value = data[i];
  for (int r = 0; r < rounds; ++r) value = value * factor + 1.0e-3f;
  data[i] = value;
}

bool ok(cudaError_t result, const char* what) {
  if (result == cudaSuccess) return true;
  std::fprintf(stderr, "cuda_streams: %s: %s\n", what, cudaGetErrorString(result));
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: %s KERNELS EVENTS_FILE [sigterm|reset]\n", argv[0]);
    return 2;
  }
  const int kernels = std::atoi(argv[1]);
  std::vector<float> host(kElements, 1.0f);
  cudaStream_t streams[kStreams];
  float* device[kStreams];
  std::vector<cudaEvent_t> starts(kStreams * kernels);
  std::vector<cudaEvent_t> stops(kStreams * kernels);
  for (int s = 0; s < kStreams; ++s) {
    if (!ok(cudaStreamCreate(&streams[s]), "cudaStreamCreate") ||
        !ok(cudaMalloc(&device[s], kElements * sizeof(float)), "cudaMalloc"))
      return 1;
  }
  for (std::size_t e = 0; e < starts.size(); ++e) {
    cudaEventCreate(&starts[e]);
    cudaEventCreate(&stops[e]);
  }
  // The first launch loads the module (CUDA loads kernels lazily): not inside an event pair.
  scale<<<kBlocks, kThreads, 0, streams[0]>>>(device[0], 1.0f, 1);
  if (!ok(cudaDeviceSynchronize(), "warm-up")) return 1;
  for (int s = 0; s < kStreams; ++s) {
    cudaMemsetAsync(device[s], 0, kElements * sizeof(float), streams[s]);
    cudaMemcpyAsync(device[s], host.data(), kElements * sizeof(float), cudaMemcpyHostToDevice,
                    streams[s]);
    scale<<<kBlocks, kThreads, 0, streams[s]>>>(device[s], 1.0f, 20 * kRounds);  // the gate
    for (int k = 0; k < kernels; ++k) {
      cudaEventRecord(starts[s * kernels + k], streams[s]);
      scale<<<kBlocks, kThreads, 0, streams[s]>>>(device[s], 1.0001f, kRounds);
      cudaEventRecord(stops[s * kernels + k], streams[s]);
    }
    cudaMemcpyAsync(host.data(), device[s], kElements * sizeof(float), cudaMemcpyDeviceToHost,
                    streams[s]);
  }
  if (!ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize")) return 1;
  FILE* events = std::fopen(argv[2], "w");
  if (events == nullptr) return 1;
  for (int s = 0; s < kStreams; ++s)
    for (int k = 0; k < kernels; ++k) {
      float ms = 0;
      cudaEventElapsedTime(&ms, starts[s * kernels + k], stops[s * kernels + k]);
      std::fprintf(events, "%d %d %.3f\n", s, k, ms * 1000.0f);
    }
  std::fclose(events);
  for (int s = 0; s < kStreams; ++s) {
    cudaFree(device[s]);
    cudaStreamDestroy(streams[s]);
  }
  std::printf("cuda_streams: %d kernels, %d copies, %d memsets\n", kStreams * (kernels + 1) + 1,
              2 * kStreams, kStreams);
  const std::string ending = argc == 4 ? argv[3] : "";
  if (ending == "sigterm") std::raise(SIGTERM);
  if (ending == "reset") cudaDeviceReset();
  return 0;
}
