/* A test runtime library named "hip": registers a (dummy) API table with rocprofiler-register
 * the way ROCm runtimes do, through its own import function. */
#include <rocprofiler-register/rocprofiler-register.h>
#include <stddef.h>

ROCPROFILER_REGISTER_DEFINE_IMPORT(hip, ROCPROFILER_REGISTER_COMPUTE_VERSION_3(5, 2, 0))

/* Not the import function of any library: registering with it must be refused. */
__attribute__((visibility("default"))) uint32_t not_an_import_function(void) { return 0; }

static void* api_table[4];

__attribute__((visibility("default"))) int test_runtime_register(const char* name, uint64_t length,
                                                                 int wrong_import) {
  void* tables[1] = {api_table};
  rocprofiler_register_library_indentifier_t id = {0};
  return rocprofiler_register_library_api_table(
      name, wrong_import ? &not_an_import_function : &ROCPROFILER_REGISTER_IMPORT_FUNC(hip),
      ROCPROFILER_REGISTER_COMPUTE_VERSION_3(5, 2, 0), tables, length, &id);
}
