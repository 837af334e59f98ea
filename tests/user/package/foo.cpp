// Uses the user API like any application: a region, and the error string of its result.
#include <rocprofiler-systems/user.h>

#include <cstdio>

int main() {
  const int pushed = rocprofsys_user_push_region("foo");
  rocprofsys_user_pop_region("foo");
  std::printf("push: %s\n", rocprofsys_user_error_string(pushed));
  return 0;
}
