// Test program: ROC-TX marks before, while and after the user API turns tracing on (for the
// process, then off and on again for one thread), and a user region while tracing is off
// (regions are always recorded). With the argument `nested`: instead, 5 user regions around
// ROC-TX ranges and 5 ROC-TX ranges around user regions, tracing on.
#include <rocprofiler-systems/user.h>
#include <roctracer/roctx.h>

#include <cstdio>
#include <cstring>
#include <thread>

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "nested") == 0) {
    rocprofsys_user_start_trace();
    for (int i = 0; i < 5; ++i) {
      rocprofsys_user_push_region("outer region");
      roctxRangePushA("inner range");
      roctxRangePop();
      rocprofsys_user_pop_region("outer region");
      roctxRangePushA("outer range");
      rocprofsys_user_push_region("inner region");
      rocprofsys_user_pop_region("inner region");
      roctxRangePop();
    }
    std::printf("nested done\n");
    return 0;
  }
  roctxMarkA("before start");
  rocprofsys_user_push_region("region while off");
  rocprofsys_user_pop_region("region while off");
  const int started = rocprofsys_user_start_trace();
  roctxMarkA("while on");
  // Off for this thread only: another thread still records.
  const int thread_stopped = rocprofsys_user_stop_thread_trace();
  roctxMarkA("thread off");
  std::thread([] { roctxMarkA("other thread"); }).join();
  const int thread_started = rocprofsys_user_start_thread_trace();
  roctxMarkA("thread on again");
  const int stopped = rocprofsys_user_stop_trace();
  roctxMarkA("after stop");
  std::printf("start %d stop %d thread stop %d thread start %d\n", started, stopped, thread_stopped,
              thread_started);
  return 0;
}
