/* rocprofiler-register: how a ROCm runtime (HSA, HIP, ROC-TX, ...) hands its intercept API
 * tables to a profiler. The runtime calls rocprofiler_register_library_api_table once its
 * tables exist; if the process holds a tool (a visible rocprofiler_configure, or one named by
 * ROCP_TOOL_LIBRARIES), the tables go to the profiler library, else nothing happens.
 *
 * Same names, values, types and layouts as ROCm's rocprofiler-register. */
#ifndef ROCPROFILER_REGISTER_H_
#define ROCPROFILER_REGISTER_H_

#include <rocprofiler-register/version.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The registering library's import function, rocprofiler_register_import_<name>: it returns
 * the library's version and tells the register library where the caller lives. */
typedef uint32_t (*rocprofiler_register_import_func_t)(void);

/* Filled in by a registration (the name's spelling is the original API's). */
typedef struct {
  uint64_t handle;
} rocprofiler_register_library_indentifier_t;

typedef enum rocprofiler_register_error_code_t {
  ROCP_REG_SUCCESS = 0,
  ROCP_REG_NO_TOOLS,             /* no tool in the process: the tables were left alone */
  ROCP_REG_DEADLOCK,             /* called again from inside a registration on this thread */
  ROCP_REG_BAD_API_TABLE_LENGTH, /* no tables (length 0) */
  ROCP_REG_UNSUPPORTED_API,      /* a library name this implementation does not know */
  ROCP_REG_INVALID_API_ADDRESS,  /* the import function is not the library's own */
  ROCP_REG_ROCPROFILER_ERROR,    /* the profiler refused the tables */
  ROCP_REG_EXCESS_API_INSTANCES, /* the same library registered too many times (over 8) */
  ROCP_REG_ERROR_CODE_END,
} rocprofiler_register_error_code_t;

/* Registers `api_table_length` tables (pointers in `api_tables`) of library `lib_name`, whose
 * version is `lib_version` (10000 * major + 100 * minor + patch). */
rocprofiler_register_error_code_t rocprofiler_register_library_api_table(
    const char* lib_name, rocprofiler_register_import_func_t import_func, uint32_t lib_version,
    void** api_tables, uint64_t api_table_length,
    rocprofiler_register_library_indentifier_t* register_id)
    ROCPROFILER_REGISTER_ATTRIBUTE(nonnull(4, 6)) ROCPROFILER_REGISTER_PUBLIC_API;

const char* rocprofiler_register_error_string(rocprofiler_register_error_code_t)
    ROCPROFILER_REGISTER_PUBLIC_API;

/* What rocprofiler_register_iterate_registration_info reports per accepted registration. */
typedef struct rocprofiler_register_registration_info_t {
  size_t size; /* of this struct, for later extensions */
  const char* common_name;
  uint32_t lib_version;
  uint64_t api_table_length;
} rocprofiler_register_registration_info_t;

/* Called per registration; a nonzero return stops the iteration. */
typedef int (*rocprofiler_register_registration_info_cb_t)(
    rocprofiler_register_registration_info_t* info, void* data);

/* Every accepted registration, in order; always ROCP_REG_SUCCESS. */
rocprofiler_register_error_code_t rocprofiler_register_iterate_registration_info(
    rocprofiler_register_registration_info_cb_t callback, void* data)
    ROCPROFILER_REGISTER_ATTRIBUTE(nonnull(1)) ROCPROFILER_REGISTER_PUBLIC_API;

#ifdef __cplusplus
}
#endif

/* Library versions as the register library expects them. */
#define ROCPROFILER_REGISTER_COMPUTE_VERSION_1(MAJOR_VERSION) (10000 * (MAJOR_VERSION))
#define ROCPROFILER_REGISTER_COMPUTE_VERSION_2(MAJOR_VERSION, MINOR_VERSION) \
  (ROCPROFILER_REGISTER_COMPUTE_VERSION_1(MAJOR_VERSION) + 100 * (MINOR_VERSION))
#define ROCPROFILER_REGISTER_COMPUTE_VERSION_3(MAJOR_VERSION, MINOR_VERSION, PATCH_VERSION) \
  (ROCPROFILER_REGISTER_COMPUTE_VERSION_2(MAJOR_VERSION, MINOR_VERSION) + (PATCH_VERSION))

/* The import function's name for library NAME (unquoted), and a definition of it that
 * returns VERSION. */
#define ROCPROFILER_REGISTER_IMPORT_FUNC(NAME) \
  ROCPROFILER_REGISTER_PP_COMBINE(rocprofiler_register_import_, NAME)
#ifdef __cplusplus
#define ROCPROFILER_REGISTER_DEFINE_IMPORT(NAME, VERSION)               \
  extern "C" {                                                          \
  uint32_t ROCPROFILER_REGISTER_IMPORT_FUNC(NAME)()                     \
      ROCPROFILER_REGISTER_ATTRIBUTE(visibility("default"));            \
  uint32_t ROCPROFILER_REGISTER_IMPORT_FUNC(NAME)() { return VERSION; } \
  }
#else
#define ROCPROFILER_REGISTER_DEFINE_IMPORT(NAME, VERSION)    \
  uint32_t ROCPROFILER_REGISTER_IMPORT_FUNC(NAME)(void)      \
      ROCPROFILER_REGISTER_ATTRIBUTE(visibility("default")); \
  uint32_t ROCPROFILER_REGISTER_IMPORT_FUNC(NAME)(void) { return VERSION; }
#endif

#endif /* ROCPROFILER_REGISTER_H_ */
