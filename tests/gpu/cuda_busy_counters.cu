// Device counters of GPU 0 (rocprofiler v2 device profiling, NVML behind it) while the GPU is
// idle and while one long kernel keeps every SM busy. Prints one line per phase,
// "PHASE NAME=VALUE ...", for check_device_counters.py.
#include <cuda_runtime.h>
#include <rocprofiler/v2/rocprofiler.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                  \
  do {                                                                               \
    rocprofiler_status_t status_ = (call);                                           \
    if (status_ != ROCPROFILER_STATUS_SUCCESS) {                                     \
      std::fprintf(stderr, "%s: %d %s\n", #call, static_cast<int>(status_),          \
                   rocprofiler_error_str(status_));                                  \
      return 1;                                                                      \
    }                                                                                \
  } while (0)

__global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

namespace {

const char* kNames[] = {"GPU_UTIL", "GPU_SM_CLOCK", "GPU_POWER", "GPU_MEM_USED",
                        "GPU_TEMPERATURE", "GPU_MEM_UTIL", "CPU_UTIL"};
constexpr int kCount = sizeof kNames / sizeof kNames[0];

int print(rocprofiler_session_id_t session, const char* phase) {
  rocprofiler_device_profile_metric_t data[kCount];
  CHECK(rocprofiler_device_profiling_session_poll(session, data));
  std::printf("%s", phase);
  for (const auto& metric : data) std::printf(" %s=%.3f", metric.metric_name, metric.value.value);
  std::printf("\n");
  std::fflush(stdout);
  return 0;
}

}  // namespace

int main() {
  int clock_khz = 0;
  int sms = 0;
  if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0) != cudaSuccess) {
    std::fprintf(stderr, "no CUDA device\n");
    return 1;
  }
  CHECK(rocprofiler_initialize());
  rocprofiler_session_id_t session;
  CHECK(rocprofiler_device_profiling_session_create(kNames, kCount, &session, -1, 0));
  CHECK(rocprofiler_device_profiling_session_start(session));
  usleep(1500000);  // NVML's utilisation covers up to the last second
  if (print(session, "idle") != 0) return 1;
  // About 4 s at the base clock on every SM (boost clocks finish sooner).
  spin<<<sms * 4, 256>>>(4LL * clock_khz * 1000);
  usleep(2000000);
  if (print(session, "busy") != 0) return 1;
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  CHECK(rocprofiler_device_profiling_session_stop(session));
  CHECK(rocprofiler_device_profiling_session_destroy(session));
  CHECK(rocprofiler_finalize());
  return 0;
}
