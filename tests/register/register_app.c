/* Test program: a "hip" runtime registers its table as the arguments say; each status is
 * printed in order. Usage: register_app twice|nine|bad|iterate */
#include <rocprofiler-register/rocprofiler-register.h>
#include <stdio.h>
#include <string.h>

int test_runtime_register(const char* name, uint64_t length, int wrong_import);

static int print_info(rocprofiler_register_registration_info_t* info, void* data) {
  (void)data;
  printf("registered %s version %u tables %llu\n", info->common_name, info->lib_version,
         (unsigned long long)info->api_table_length);
  return 0;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "twice";
  int count = strcmp(mode, "nine") == 0 ? 9 : strcmp(mode, "twice") == 0 ? 2 : 1;
  if (strcmp(mode, "bad") == 0) {
    printf("status %d\n", test_runtime_register("hip", 0, 0));
    printf("status %d\n", test_runtime_register("not_a_runtime", 1, 0));
    printf("status %d\n", test_runtime_register("hip", 1, 1));
    return 0;
  }
  for (int i = 0; i < count; ++i) {
    const int status = test_runtime_register("hip", 1, 0);
    printf("status %d (%s)\n", status,
           rocprofiler_register_error_string((rocprofiler_register_error_code_t)status));
  }
  if (strcmp(mode, "iterate") == 0)
    rocprofiler_register_iterate_registration_info(&print_info, NULL);
  return 0;
}
