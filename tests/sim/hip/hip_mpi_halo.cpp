// A 2-rank HIP + MPI program, written as one for a real GPU: each iteration copies its halo
// to the host, exchanges it with the other rank (MPI_Sendrecv), copies the neighbour's halo
// back and runs a stencil kernel. At the end a global sum goes through MPI_Allreduce with an
// operation that reduces on the GPU (staging copies and a kernel inside the MPI call).
// Linked against Debian's libamdhip64; the tests run it on the simulated one.
//
// usage: hip_mpi_halo [ITERATIONS]
#include <hip/hip_runtime_api.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "tests/sim/hip/hip_registration.hpp"

namespace {

// The kernels' host-side stubs, as hipcc makes them, and their device names.
void stencil(float* /*field*/, int /*n*/) {}
void reduce_sum(double* /*inout*/, const double* /*in*/, int /*n*/) {}
char kStencilName[] = "_Z7stencilPfi";
char kReduceName[] = "_Z10reduce_sumPdPKdi";

constexpr int kHalo = 4096;  // floats

#define CHECK_HIP(call)                                                    \
  do {                                                                     \
    const hipError_t status_ = (call);                                     \
    if (status_ != hipSuccess) {                                           \
      std::fprintf(stderr, "%s: %s\n", #call, hipGetErrorString(status_)); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                        \
    }                                                                      \
  } while (0)

// MPI_Allreduce's operation: `in` added into `inout` on the GPU (staged through device
// memory, as a GPU code without GPU-aware MPI does).
void gpu_sum(void* in, void* inout, int* length, MPI_Datatype* /*type*/) {
  const std::size_t bytes = static_cast<std::size_t>(*length) * sizeof(double);
  void* device_in = nullptr;
  void* device_inout = nullptr;
  CHECK_HIP(hipMalloc(&device_in, bytes));
  CHECK_HIP(hipMalloc(&device_inout, bytes));
  CHECK_HIP(hipMemcpy(device_in, in, bytes, hipMemcpyHostToDevice));
  CHECK_HIP(hipMemcpy(device_inout, inout, bytes, hipMemcpyHostToDevice));
  void* args[] = {&device_inout, &device_in, length};
  CHECK_HIP(hipLaunchKernel(reinterpret_cast<const void*>(&reduce_sum), dim3(1), dim3(64), args, 0,
                            nullptr));
  CHECK_HIP(hipDeviceSynchronize());
  CHECK_HIP(hipMemcpy(inout, device_inout, bytes, hipMemcpyDeviceToHost));
  // The simulated kernel computes nothing: the sum itself on the host.
  auto* sums = static_cast<double*>(inout);
  const auto* more = static_cast<const double*>(in);
  for (int i = 0; i < *length; ++i) sums[i] += more[i];
  CHECK_HIP(hipFree(device_in));
  CHECK_HIP(hipFree(device_inout));
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 20;
  void** modules = __hipRegisterFatBinary(nullptr);
  __hipRegisterFunction(modules, reinterpret_cast<const void*>(&stencil), kStencilName,
                        kStencilName, ~0U, nullptr, nullptr, nullptr, nullptr, nullptr);
  __hipRegisterFunction(modules, reinterpret_cast<const void*>(&reduce_sum), kReduceName,
                        kReduceName, ~0U, nullptr, nullptr, nullptr, nullptr, nullptr);

  const int neighbour = rank ^ 1;
  const std::size_t bytes = kHalo * sizeof(float);
  std::vector<float> send(kHalo, static_cast<float>(rank));
  std::vector<float> receive(kHalo, -1.0F);
  float* field = nullptr;
  hipStream_t stream = nullptr;
  CHECK_HIP(hipMalloc(reinterpret_cast<void**>(&field), 2 * bytes));
  CHECK_HIP(hipStreamCreate(&stream));
  CHECK_HIP(hipMemcpy(field, send.data(), bytes, hipMemcpyHostToDevice));
  int n = kHalo;
  for (int i = 0; i < iterations; ++i) {
    CHECK_HIP(hipMemcpy(send.data(), field, bytes, hipMemcpyDeviceToHost));
    if (neighbour < size)
      MPI_Sendrecv(send.data(), kHalo, MPI_FLOAT, neighbour, i, receive.data(), kHalo, MPI_FLOAT,
                   neighbour, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK_HIP(hipMemcpy(field + kHalo, receive.data(), bytes, hipMemcpyHostToDevice));
    void* args[] = {&field, &n};
    CHECK_HIP(hipLaunchKernel(reinterpret_cast<const void*>(&stencil), dim3(kHalo / 256), dim3(256),
                              args, 0, stream));
    CHECK_HIP(hipStreamSynchronize(stream));
  }
  MPI_Op sum_on_gpu = MPI_OP_NULL;
  MPI_Op_create(gpu_sum, 1, &sum_on_gpu);
  double local = receive[0] + 1.0;
  double total = 0.0;
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, sum_on_gpu, MPI_COMM_WORLD);
  MPI_Op_free(&sum_on_gpu);
  CHECK_HIP(hipStreamDestroy(stream));
  CHECK_HIP(hipFree(field));
  if (rank == 0)
    std::printf("hip_mpi_halo: %d ranks, %d iterations, sum %.1f\n", size, iterations, total);
  MPI_Finalize();
  return 0;
}
