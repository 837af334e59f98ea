/* rocprofiler-systems user API: callback table, configure modes and error codes.
 *
 * Same names, values and layouts as the rocprofiler-systems headers, so programs written for
 * them build unchanged against rocprof-mpi's librocprof-sys-user. */
#ifndef ROCPROFSYS_TYPES_H_
#define ROCPROFSYS_TYPES_H_

#include <stddef.h>
#include <stdint.h>

#if defined(__cplusplus)
extern "C" {
#endif

struct rocprofsys_annotation;

/* What each user-API call is forwarded to. */
typedef int (*rocprofsys_trace_func_t)(void);
typedef int (*rocprofsys_region_func_t)(const char*);
typedef int (*rocprofsys_annotated_region_func_t)(const char*, struct rocprofsys_annotation*,
                                                  size_t);

/* The user API's targets, in this order. A NULL entry makes its call return
 * ROCPROFSYS_USER_ERROR_NO_BINDING. */
typedef struct rocprofsys_user_callbacks {
  rocprofsys_trace_func_t start_trace;        /* tracing on, process-wide */
  rocprofsys_trace_func_t stop_trace;         /* tracing off, process-wide */
  rocprofsys_trace_func_t start_thread_trace; /* tracing on, this thread only */
  rocprofsys_trace_func_t stop_thread_trace;  /* tracing off, this thread only */
  rocprofsys_region_func_t push_region;       /* a named region begins */
  rocprofsys_region_func_t pop_region;        /* ... and ends */
  rocprofsys_region_func_t progress;          /* a progress point */
  rocprofsys_annotated_region_func_t push_annotated_region;
  rocprofsys_annotated_region_func_t pop_annotated_region;
  rocprofsys_annotated_region_func_t annotated_progress;
} rocprofsys_user_callbacks_t;

/* How rocprofsys_user_configure combines the given table with the current one. */
typedef enum ROCPROFSYS_USER_CONFIGURE_MODE {
  ROCPROFSYS_USER_UNION_CONFIG = 0, /* the given non-NULL entries replace the current ones */
  ROCPROFSYS_USER_REPLACE_CONFIG,   /* the given table replaces the current one, NULLs too */
  ROCPROFSYS_USER_INTERSECT_CONFIG, /* only entries set in both stay (the given ones) */
  ROCPROFSYS_USER_CONFIGURE_MODE_LAST
} rocprofsys_user_configure_mode_t;

/* What the user-API calls return. */
typedef enum ROCPROFSYS_USER_ERROR {
  ROCPROFSYS_USER_SUCCESS = 0,
  ROCPROFSYS_USER_ERROR_NO_BINDING,       /* nothing bound to the call (no profiler) */
  ROCPROFSYS_USER_ERROR_BAD_VALUE,        /* an argument was invalid */
  ROCPROFSYS_USER_ERROR_INVALID_CATEGORY, /* an unknown binding category */
  ROCPROFSYS_USER_ERROR_INTERNAL,         /* the profiler failed */
  ROCPROFSYS_USER_ERROR_LAST
} rocprofsys_user_error_t;

#if defined(__cplusplus)
}
#endif

/* A table with every entry NULL. */
#ifndef ROCPROFSYS_USER_CALLBACKS_INIT
#define ROCPROFSYS_USER_CALLBACKS_INIT \
  { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL }
#endif

#endif /* ROCPROFSYS_TYPES_H_ */
