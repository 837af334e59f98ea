/* A test tool: defines rocprofiler_configure (how a process says it holds a tool), prints each
 * call and tries to register again from inside it, which must be refused as a deadlock. It
 * returns a configure result whose initialize and finalize print too; with
 * TEST_TOOL_FINALIZE_EARLY=1 initialize finalizes the tool at once through the function it is
 * given, with TEST_TOOL_INIT_FAILS=1 initialize fails. */
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char* name;
  uint32_t handle;
} client_id_t;
typedef void (*client_finalize_t)(client_id_t);
typedef struct {
  size_t size;
  int (*initialize)(client_finalize_t, void*);
  void (*finalize)(void*);
  void* tool_data;
} configure_result_t;

static client_id_t* my_id;
static int tool_data = 42;

static int env_is_one(const char* name) {
  const char* value = getenv(name);
  return value != NULL && strcmp(value, "1") == 0;
}

static int tool_initialize(client_finalize_t finalize, void* data) {
  printf("initialize data %d client %s\n", *(int*)data, my_id->name);
  fflush(stdout);
  if (env_is_one("TEST_TOOL_INIT_FAILS")) return 1;
  if (env_is_one("TEST_TOOL_FINALIZE_EARLY")) finalize(*my_id);
  return 0;
}

static void tool_finalize(void* data) {
  printf("finalize data %d\n", *(int*)data);
  fflush(stdout);
}

static configure_result_t result = {sizeof(configure_result_t), tool_initialize, tool_finalize,
                                    &tool_data};

typedef int (*register_fn)(const char*, void*, uint32_t, void**, uint64_t, void*);

__attribute__((visibility("default"))) void* rocprofiler_configure(uint32_t version,
                                                                   const char* runtime_version,
                                                                   uint32_t priority,
                                                                   void* client_id) {
  my_id = (client_id_t*)client_id;
  printf("configure version %u runtime %s priority %u\n", version, runtime_version, priority);
  register_fn again = (register_fn)dlsym(RTLD_DEFAULT, "rocprofiler_register_library_api_table");
  void* table = NULL;
  void* tables[1] = {&table};
  uint64_t id = 0;
  if (again != NULL) printf("re-entered: %d\n", again("hip", NULL, 0, tables, 1, &id));
  fflush(stdout);
  return &result;
}
