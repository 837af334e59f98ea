/* A program written from the rocprofiler v2 "Device Profiling API" page alone, as a user of
 * ROCm would: initialize, create a session for some counters, start it, poll it a few times,
 * stop and destroy it, finalize. Here it samples host counters, which every machine has. */
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

int main(void) {
  const char* counters[] = {"CPU_UTIL", "PROCESS_RSS"};
  rocprofiler_session_id_t session;
  rocprofiler_device_profile_metric_t data[2];
  int cpu_agent = -1;
  int gpu_agent = 0;
  int poll;
  CHECK(rocprofiler_initialize());
  CHECK(rocprofiler_device_profiling_session_create(counters, 2, &session, cpu_agent, gpu_agent));
  CHECK(rocprofiler_device_profiling_session_start(session));
  for (poll = 1; poll <= 3; ++poll) {
    usleep(20000);
    CHECK(rocprofiler_device_profiling_session_poll(session, data));
    printf("poll %d: %s = %.1f %s = %.0f\n", poll, data[0].metric_name, data[0].value.value,
           data[1].metric_name, data[1].value.value);
  }
  CHECK(rocprofiler_device_profiling_session_stop(session));
  CHECK(rocprofiler_device_profiling_session_destroy(session));
  CHECK(rocprofiler_finalize());
  printf("destroyed\n");
  return 0;
}
