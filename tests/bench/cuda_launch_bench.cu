// The CUDA program of the tracing-overhead benchmark (cuda_overhead.py): MODE `launch` runs
// COUNT tiny kernels back to back (launch-bound), `compute` runs COUNT kernels of about a
// millisecond each (compute-bound). Prints the seconds from the first launch to the end of
// the last kernel, so start-up (CUDA's and the tracer's) is not counted.
// Usage: cuda_launch_bench launch|compute COUNT
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

__global__ void tiny(float* data) { data[threadIdx.x] += 1.0f; }

__global__ void busy(float* data, int rounds) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float value = data[i];
  for (int r = 0; r < rounds; ++r) value = value * 1.0001f + 1.0e-3f;
  data[i] = value;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s launch|compute COUNT\n", argv[0]);
    return 2;
  }
  const bool launch_bound = std::strcmp(argv[1], "launch") == 0;
  const int count = std::atoi(argv[2]);
  float* data = nullptr;
  constexpr int kBlocks = 264;
  constexpr int kThreads = 256;
  cudaMalloc(&data, kBlocks * kThreads * sizeof(float));
  cudaMemset(data, 0, kBlocks * kThreads * sizeof(float));
  tiny<<<1, 32>>>(data);  // loads the module before the clock starts
  busy<<<1, 32>>>(data, 1);
  cudaDeviceSynchronize();
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < count; ++i) {
    if (launch_bound)
      tiny<<<1, 32>>>(data);
    else
      busy<<<kBlocks, kThreads>>>(data, 400000);
  }
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%.6f\n", seconds);
  cudaFree(data);
  return 0;
}
