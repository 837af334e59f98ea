// Test program: ROC-TX marks before, while and after the user API turns tracing on (for the
// process, then off and on again for one thread), and a user region while tracing is off
// (regions are always recorded).
#include <rocprofiler-systems/user.h>
#include <roctracer/roctx.h>

#include <cstdio>
#include <thread>

int main() {
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
