/* A program written from the rocprofiler v2 "Device Profiling API" page alone, as a user of
 * ROCm would: initialize, create a session for some counters, start it, poll it a few times,
 * stop and destroy it, finalize. It samples the counters named on its command line, by default
 * host counters, which every machine has; each backend's test names its own. */
#include <rocprofiler/v2/rocprofiler.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define CHECK(call)                                                                               \
  do {                                                                                            \
    rocprofiler_status_t status_ = (call);                                                        \
    if (status_ != ROCPROFILER_STATUS_SUCCESS) {                                                  \
      fprintf(stderr, "%s failed: %d %s\n", #call, (int)status_, rocprofiler_error_str(status_)); \
      exit(1);                                                                                    \
    }                                                                                             \
  } while (0)

enum { kMaxCounters = 8 };

int main(int argc, char** argv) {
  const char* defaults[] = {"CPU_UTIL", "PROCESS_RSS"};
  const char* counters[kMaxCounters];
  uint64_t count = 0;
  rocprofiler_session_id_t session;
  rocprofiler_device_profile_metric_t data[kMaxCounters];
  int cpu_agent = -1;
  int gpu_agent = 0;
  int poll;
  uint64_t i;
  for (i = 1; i < (uint64_t)argc && count < kMaxCounters; ++i) counters[count++] = argv[i];
  for (i = 0; count == 0 && i < 2; ++i) counters[i] = defaults[i];
  if (count == 0) count = 2;
  CHECK(rocprofiler_initialize());
  CHECK(
      rocprofiler_device_profiling_session_create(counters, count, &session, cpu_agent, gpu_agent));
  CHECK(rocprofiler_device_profiling_session_start(session));
  for (poll = 1; poll <= 3; ++poll) {
    usleep(20000);
    CHECK(rocprofiler_device_profiling_session_poll(session, data));
    printf("poll %d:", poll);
    for (i = 0; i < count; ++i) printf(" %s = %.1f", data[i].metric_name, data[i].value.value);
    printf("\n");
  }
  CHECK(rocprofiler_device_profiling_session_stop(session));
  CHECK(rocprofiler_device_profiling_session_destroy(session));
  CHECK(rocprofiler_finalize());
  printf("destroyed\n");
  return 0;
}
