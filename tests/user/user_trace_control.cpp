// Test program: ROC-TX marks before, while and after the user API turns tracing on, and a
// user region while it is off (regions are always recorded).
#include <rocprofiler-systems/user.h>
#include <roctracer/roctx.h>

#include <cstdio>

int main() {
  roctxMarkA("before start");
  rocprofsys_user_push_region("region while off");
  rocprofsys_user_pop_region("region while off");
  const int started = rocprofsys_user_start_trace();
  roctxMarkA("while on");
  const int stopped = rocprofsys_user_stop_trace();
  roctxMarkA("after stop");
  std::printf("start %d stop %d\n", started, stopped);
  return 0;
}
