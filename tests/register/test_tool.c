/* A test tool: defines rocprofiler_configure (how a process says it holds a tool), prints each
 * call and tries to register again from inside it, which must be refused as a deadlock. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

typedef int (*register_fn)(const char*, void*, uint32_t, void**, uint64_t, void*);

__attribute__((visibility("default"))) void* rocprofiler_configure(uint32_t version,
                                                                   const char* runtime_version,
                                                                   uint32_t priority,
                                                                   void* client_id) {
  (void)client_id;
  printf("configure version %u runtime %s priority %u\n", version, runtime_version, priority);
  register_fn again = (register_fn)dlsym(RTLD_DEFAULT, "rocprofiler_register_library_api_table");
  void* table = NULL;
  void* tables[1] = {&table};
  uint64_t id = 0;
  if (again != NULL) printf("re-entered: %d\n", again("hip", NULL, 0, tables, 1, &id));
  fflush(stdout);
  return NULL;
}
