// A 2-rank MPI + CUDA program for the GPU tests: each iteration a stencil kernel, the halo
// copied to the host, exchanged with MPI_Sendrecv, copied back, and a residual summed with
// MPI_Allreduce through a user-defined operation that copies its operands through the GPU, so
// that CUDA copies run inside an MPI call. Each rank uses GPU (local rank % GPU count).
// Usage: cuda_halo_mpi ITERATIONS
#include <cuda_runtime.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr int kElements = 1 << 20;
constexpr int kHalo = 1 << 16;
float* g_scratch = nullptr;  // device buffer of the reduction

__global__ void stencil(float* field, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1) field[i] = 0.5f * field[i] + 0.25f * (field[i - 1] + field[i + 1]);
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
  for (int it = 0; it < iterations; ++it) {
    stencil<<<kElements / 256, 256>>>(field, kElements);
    cudaMemcpy(send.data(), field, kHalo * sizeof(float), cudaMemcpyDeviceToHost);
    MPI_Sendrecv(send.data(), kHalo, MPI_FLOAT, partner, it, receive.data(), kHalo, MPI_FLOAT,
                 partner, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    cudaMemcpy(field + kElements - kHalo, receive.data(), kHalo * sizeof(float),
               cudaMemcpyHostToDevice);
    float local_residual = static_cast<float>(it + rank);
    MPI_Allreduce(&local_residual, &residual, 1, MPI_FLOAT, sum, MPI_COMM_WORLD);
  }
  cudaDeviceSynchronize();
  MPI_Op_free(&sum);
  cudaFree(g_scratch);
  cudaFree(field);
  if (rank == 0) std::printf("halo: %d ranks, %d iterations, residual %.1f\n", size, iterations, residual);
  MPI_Finalize();
  return 0;
}
