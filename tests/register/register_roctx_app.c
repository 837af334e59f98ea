/* Test program: links libroctx64 (which registers its API table when loaded) and a tool, and
 * reports what rocprofiler-register saw by the time main runs. */
#include <rocprofiler-register/rocprofiler-register.h>
#include <roctracer/roctx.h>
#include <stdio.h>

static int print_info(rocprofiler_register_registration_info_t* info, void* data) {
  (void)data;
  printf("registered %s version %u tables %llu\n", info->common_name, info->lib_version,
         (unsigned long long)info->api_table_length);
  return 0;
}

int main(void) {
  printf("main\n");
  rocprofiler_register_iterate_registration_info(&print_info, NULL);
  roctxMarkA("after registration");
  return 0;
}
