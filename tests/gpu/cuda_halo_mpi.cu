// A 2-rank MPI + CUDA program for the GPU tests: each iteration a stencil kernel, the halo
// copied to the host, exchanged with MPI_Sendrecv, copied back, and a residual summed with
// MPI_Allreduce through a user-defined operation that copies its operands through the GPU, so
// that CUDA copies run inside an MPI call. Each rank uses GPU (local rank % GPU count). Each
// stencil kernel is also timed with cudaEvents: EVENTS_PREFIX.<rank> gets one line per kernel
// (µs), when given. Usage: cuda_halo_mpi ITERATIONS [EVENTS_PREFIX]
#include <cuda_runtime.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr int kElements = 1 << 20;
constexpr int kHalo = 1 << 16;
float* g_scratch = nullptr;  // device buffer of the reduction

// Some hundred µs, so that event and activity times compare to a few percent.
constexpr int kRounds = 10000;

// Keeps the GPU busy while the host queues the timed kernel and its events, so that the
// start event does not wait for the launch (which the event pair would count).
__global__ void gate(float* scratch) {
  float value = scratch[threadIdx.x];
  for (int r = 0; r < 200000; ++r) value = value * 0.999f + 1.0e-3f;
  scratch[threadIdx.x] = value;
}

__global__ void stencil(float* field, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= 0 || i >= n - 1) return;
  float value = field[i];
  for (int r = 0; r < kRounds; ++r) value = 0.5f * value + 0.25f * (field[i - 1] + field[i + 1]);
  field[i] = value;
}

// The reduction, through the GPU: both operands go to the device and back.
void gpu_sum(void* in, void* inout, int* length, MPI_Datatype* /*type*/) {
  const std::size_t bytes = static_cast<std::size_t>(*length) * sizeof(float);
  std::vector<float> incoming(static_cast<std::size_t>(*length));
  cudaMemcpy(g_scratch, in, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(incoming.data(), g_scratch, bytes, cudaMemcpyDeviceToHost);
  auto* result = static_cast<float*>(inout);
  for (int i = 0; i < *length; ++i) result[i] += incoming[static_cast<std::size_t>(i)];
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 20;
  int devices = 0;
  cudaGetDeviceCount(&devices);
  const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK");
  cudaSetDevice((local != nullptr ? std::atoi(local) : rank) % (devices > 0 ? devices : 1));
  float* field = nullptr;
  cudaMalloc(&field, kElements * sizeof(float));
  cudaMalloc(&g_scratch, 1024 * sizeof(float));
  cudaMemset(field, 0, kElements * sizeof(float));
  std::vector<float> send(kHalo, static_cast<float>(rank));
  std::vector<float> receive(kHalo);
  MPI_Op sum;
  MPI_Op_create(gpu_sum, 1, &sum);
  const int partner = rank ^ 1;
  float residual = 0;
  std::vector<cudaEvent_t> starts(iterations);
  std::vector<cudaEvent_t> stops(iterations);
  for (int it = 0; it < iterations; ++it) {
    cudaEventCreate(&starts[it]);
    cudaEventCreate(&stops[it]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const double loop_start = MPI_Wtime();
  for (int it = 0; it < iterations; ++it) {
    gate<<<1, 32>>>(g_scratch);
    cudaEventRecord(starts[it]);
    stencil<<<kElements / 256, 256>>>(field, kElements);
    cudaEventRecord(stops[it]);
    cudaMemcpy(send.data(), field, kHalo * sizeof(float), cudaMemcpyDeviceToHost);
    MPI_Sendrecv(send.data(), kHalo, MPI_FLOAT, partner, it, receive.data(), kHalo, MPI_FLOAT,
                 partner, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    cudaMemcpy(field + kElements - kHalo, receive.data(), kHalo * sizeof(float),
               cudaMemcpyHostToDevice);
    float local_residual = static_cast<float>(it + rank);
    MPI_Allreduce(&local_residual, &residual, 1, MPI_FLOAT, sum, MPI_COMM_WORLD);
  }
  cudaDeviceSynchronize();
  MPI_Barrier(MPI_COMM_WORLD);
  // On stderr: the run's output stays the same traced or not.
  if (rank == 0) std::fprintf(stderr, "halo loop: %.6f s\n", MPI_Wtime() - loop_start);
  if (argc > 2) {
    const std::string path = std::string(argv[2]) + "." + std::to_string(rank);
    if (FILE* events = std::fopen(path.c_str(), "w")) {
      for (int it = 0; it < iterations; ++it) {
        float ms = 0;
        cudaEventElapsedTime(&ms, starts[it], stops[it]);
        std::fprintf(events, "%.3f\n", ms * 1000.0f);
      }
      std::fclose(events);
    }
  }
  MPI_Op_free(&sum);
  cudaFree(g_scratch);
  cudaFree(field);
  if (rank == 0)
    std::printf("halo: %d ranks, %d iterations, residual %.1f\n", size, iterations, residual);
  MPI_Finalize();
  return 0;
}
