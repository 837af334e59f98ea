/* rocprof-mpi: roctracer-compatible tracing API (callbacks, activity pools, external ids).
 *
 * Same names, values, layouts and symbol versions as the public roctracer 4.1 interface, so
 * programs written for roctracer compile and link against libroctracer64.so unchanged. The
 * text is our own; docs/ROCTRACER.md describes the behaviour in detail.
 *
 * Threads: every function may be called from any thread. Errors: functions returning
 * roctracer_status_t return ROCTRACER_STATUS_SUCCESS or a negative code and then leave a
 * description for roctracer_error_string() in the calling thread. */
#ifndef ROCPROF_MPI_ROCTRACER_H
#define ROCPROF_MPI_ROCTRACER_H

#include <stddef.h>
#include <stdint.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

#include "ext/prof_protocol.h"

#if defined(ROCTRACER_EXPORTS)
#define ROCTRACER_API __attribute__((visibility("default")))
#else
#define ROCTRACER_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Interface version. A program built against MAJOR.MINOR works with an installed library of
 * the same major version and an equal or newer minor version. */
#define ROCTRACER_VERSION_MAJOR 4
#define ROCTRACER_VERSION_MINOR 1

/* Version of the loaded library; callable at any time. */
ROCTRACER_API uint32_t roctracer_version_major(void);
ROCTRACER_API uint32_t roctracer_version_minor(void);

typedef enum {
  ROCTRACER_STATUS_SUCCESS = 0,
  ROCTRACER_STATUS_ERROR = -1,
  ROCTRACER_STATUS_ERROR_INVALID_DOMAIN_ID = -2,
  ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT = -3,
  ROCTRACER_STATUS_ERROR_DEFAULT_POOL_UNDEFINED = -4,
  ROCTRACER_STATUS_ERROR_DEFAULT_POOL_ALREADY_DEFINED = -5,
  ROCTRACER_STATUS_ERROR_MEMORY_ALLOCATION = -6,
  ROCTRACER_STATUS_ERROR_MISMATCHED_EXTERNAL_CORRELATION_ID = -7,
  /* Older spellings kept so old sources still compile. */
  ROCTRACER_STATUS_UNINIT = 2,
  ROCTRACER_STATUS_BREAK = 3,
  ROCTRACER_STATUS_BAD_DOMAIN = ROCTRACER_STATUS_ERROR_INVALID_DOMAIN_ID,
  ROCTRACER_STATUS_BAD_PARAMETER = ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT,
  ROCTRACER_STATUS_HIP_API_ERR = 6,
  ROCTRACER_STATUS_HIP_OPS_ERR = 7,
  ROCTRACER_STATUS_HCC_OPS_ERR = ROCTRACER_STATUS_HIP_OPS_ERR,
  ROCTRACER_STATUS_HSA_ERR = 7,
  ROCTRACER_STATUS_ROCTX_ERR = 8,
} roctracer_status_t;

/* Text of the last failed call made by this thread ("" if none). The string belongs to the
 * library and stays valid until this thread's next failing call. */
ROCTRACER_API const char* roctracer_error_string(void);

typedef activity_domain_t roctracer_domain_t;

/* Name of operation `op` of `domain` ("hipMalloc", "hsa_init", "roctxMarkA", "DISPATCH").
 * For ACTIVITY_DOMAIN_HIP_OPS a non-zero `kind` that names a HIP command kind selects the
 * command's name instead. Returns NULL for an unknown domain or op. The string is static. */
ROCTRACER_API const char* roctracer_op_string(uint32_t domain, uint32_t op, uint32_t kind);

/* Reverse of roctracer_op_string: the op id (and kind, if `kind` is not NULL) of `str`. */
ROCTRACER_API roctracer_status_t roctracer_op_code(uint32_t domain, const char* str, uint32_t* op,
                                                   uint32_t* kind);

/* Domain-specific settings. Accepted for HSA_OPS and HIP_OPS (runtime hooks, see the docs);
 * ignored with success for domains that take none. */
ROCTRACER_API roctracer_status_t roctracer_set_properties(roctracer_domain_t domain,
                                                          void* properties);

/* ---- Callbacks: called synchronously in the thread making the traced call. ---- */

typedef activity_rtapi_callback_t roctracer_rtapi_callback_t;

/* Enable `callback` for one op / every op of a domain / every op of every domain. A later
 * enable of the same op replaces the earlier callback and argument. */
ROCTRACER_API roctracer_status_t roctracer_enable_op_callback(activity_domain_t domain, uint32_t op,
                                                              activity_rtapi_callback_t callback,
                                                              void* arg);
ROCTRACER_API roctracer_status_t roctracer_enable_domain_callback(
    activity_domain_t domain, activity_rtapi_callback_t callback, void* arg);
ROCTRACER_API roctracer_status_t roctracer_enable_callback(activity_rtapi_callback_t callback,
                                                           void* arg);

/* Disable callbacks. Disabling an op that has no callback is an INVALID_ARGUMENT error;
 * the domain-wide and global forms succeed whatever was enabled. A callback already running
 * on another thread may still finish after these return. */
ROCTRACER_API roctracer_status_t roctracer_disable_op_callback(activity_domain_t domain,
                                                               uint32_t op);
ROCTRACER_API roctracer_status_t roctracer_disable_domain_callback(activity_domain_t domain);
ROCTRACER_API roctracer_status_t roctracer_disable_callback(void);

/* ---- Activity: records written to memory pools, delivered on a pool thread. ---- */

typedef activity_record_t roctracer_record_t;

/* Step to the record after `record` (records have a fixed stride). */
ROCTRACER_API roctracer_status_t roctracer_next_record(const activity_record_t* record,
                                                       const activity_record_t** next);

/* Pool buffer allocator: *ptr == NULL: allocate `size` bytes into *ptr; *ptr != NULL and
 * size != 0: reallocate; size == 0: free *ptr. */
typedef void (*roctracer_allocator_t)(char** ptr, size_t size, void* arg);

/* Receives a buffer of complete records [begin, end). Runs on the pool's own thread, never
 * inside a traced call; the buffer and any strings it points to are valid only during the
 * call. */
typedef void (*roctracer_buffer_callback_t)(const char* begin, const char* end, void* arg);

typedef struct {
  uint32_t mode;                                   /* reserved, must be 0 or is ignored */
  size_t buffer_size;                              /* bytes per delivered buffer */
  roctracer_allocator_t alloc_fun;                 /* NULL: malloc/realloc/free */
  void* alloc_arg;                                 /* passed to alloc_fun */
  roctracer_buffer_callback_t buffer_callback_fun; /* required */
  void* buffer_callback_arg;                       /* passed to buffer_callback_fun */
} roctracer_properties_t;

typedef void roctracer_pool_t;

/* Create a pool. With `pool` != NULL the new pool is returned there and the default pool is
 * untouched; with `pool` == NULL it becomes the default pool, which must not exist yet.
 * buffer_size 0 or larger than 1 GiB is rejected; small sizes are rounded up to 4 KiB. */
ROCTRACER_API roctracer_status_t roctracer_open_pool_expl(const roctracer_properties_t* properties,
                                                          roctracer_pool_t** pool);
ROCTRACER_API roctracer_status_t roctracer_open_pool(const roctracer_properties_t* properties);

/* Close a pool (NULL: the default pool): disables every activity routed to it, delivers
 * everything recorded so far, then frees it. Closing an unknown or already closed pool is
 * an INVALID_ARGUMENT error. */
ROCTRACER_API roctracer_status_t roctracer_close_pool_expl(roctracer_pool_t* pool);
ROCTRACER_API roctracer_status_t roctracer_close_pool(void);

/* The default pool (NULL if none); the _expl form also makes `pool` the default when it is
 * not NULL and returns the previous default. */
ROCTRACER_API roctracer_pool_t* roctracer_default_pool_expl(roctracer_pool_t* pool);
ROCTRACER_API roctracer_pool_t* roctracer_default_pool(void);

/* Route activity of one op / a domain / everything to `pool` (NULL: the default pool). */
ROCTRACER_API roctracer_status_t roctracer_enable_op_activity_expl(activity_domain_t domain,
                                                                   uint32_t op,
                                                                   roctracer_pool_t* pool);
ROCTRACER_API roctracer_status_t roctracer_enable_op_activity(activity_domain_t domain,
                                                              uint32_t op);
ROCTRACER_API roctracer_status_t roctracer_enable_domain_activity_expl(activity_domain_t domain,
                                                                       roctracer_pool_t* pool);
ROCTRACER_API roctracer_status_t roctracer_enable_domain_activity(activity_domain_t domain);
ROCTRACER_API roctracer_status_t roctracer_enable_activity_expl(roctracer_pool_t* pool);
ROCTRACER_API roctracer_status_t roctracer_enable_activity(void);

/* Stop recording activity. Disabling an op that has no activity enabled is an
 * INVALID_ARGUMENT error; the domain-wide and global forms always succeed. */
ROCTRACER_API roctracer_status_t roctracer_disable_op_activity(activity_domain_t domain,
                                                               uint32_t op);
ROCTRACER_API roctracer_status_t roctracer_disable_domain_activity(activity_domain_t domain);
ROCTRACER_API roctracer_status_t roctracer_disable_activity(void);

/* Deliver every record completed so far (NULL: the default pool) and return when the buffer
 * callbacks for them have returned. */
ROCTRACER_API roctracer_status_t roctracer_flush_activity_expl(roctracer_pool_t* pool);
ROCTRACER_API roctracer_status_t roctracer_flush_activity(void);

/* Current time in ns on the tracer clock: CLOCK_BOOTTIME, the clock the ROCm runtime uses
 * for its system timestamps, so host and converted GPU times compare directly. */
ROCTRACER_API roctracer_status_t roctracer_get_timestamp(roctracer_timestamp_t* timestamp);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ROCPROF_MPI_ROCTRACER_H */
