/* rocprofiler-systems user API (librocprof-sys-user): regions, progress points and trace
 * control from inside the application.
 *
 * Without a profiler in the process every call is a cheap no-op returning
 * ROCPROFSYS_USER_ERROR_NO_BINDING; under rocprof-mpi the calls go into the rank's trace.
 * Link with -lrocprof-sys-user, or in CMake:
 *   find_package(rocprofiler-systems REQUIRED COMPONENTS user)
 *   target_link_libraries(app PRIVATE rocprofiler-systems::rocprofiler-systems-user-library)
 * Every function returns a rocprofsys_user_error_t value. */
#ifndef ROCPROFSYS_USER_H_
#define ROCPROFSYS_USER_H_

#if !defined(ROCPROFSYS_PUBLIC_API)
#if defined(ROCPROFSYS_USER_SOURCE) && (ROCPROFSYS_USER_SOURCE > 0)
#define ROCPROFSYS_PUBLIC_API __attribute__((visibility("default")))
#else
#define ROCPROFSYS_PUBLIC_API
#endif
#endif

#include "rocprofiler-systems/categories.h"
#include "rocprofiler-systems/types.h"

#if defined(__cplusplus)
extern "C" {
#endif

/* Tracing on (off) for the whole process. A program that can call these starts with tracing
 * off, unless ROCPROFSYS_INIT_ENABLED is true; user regions are recorded either way. */
extern int rocprofsys_user_start_trace(void) ROCPROFSYS_PUBLIC_API;
extern int rocprofsys_user_stop_trace(void) ROCPROFSYS_PUBLIC_API;

/* Tracing on (off) for the calling thread only. */
extern int rocprofsys_user_start_thread_trace(void) ROCPROFSYS_PUBLIC_API;
extern int rocprofsys_user_stop_thread_trace(void) ROCPROFSYS_PUBLIC_API;

/* A named region on the calling thread; pop regions in the reverse order of their pushes.
 * GPU work and MPI calls made inside a region are attributed to it. */
extern int rocprofsys_user_push_region(const char* name) ROCPROFSYS_PUBLIC_API;
extern int rocprofsys_user_pop_region(const char* name) ROCPROFSYS_PUBLIC_API;

/* The same with `count` annotations recorded with the region's begin (end). */
extern int rocprofsys_user_push_annotated_region(const char* name,
                                                 rocprofsys_annotation_t* annotations,
                                                 size_t count) ROCPROFSYS_PUBLIC_API;
extern int rocprofsys_user_pop_annotated_region(const char* name,
                                                rocprofsys_annotation_t* annotations,
                                                size_t count) ROCPROFSYS_PUBLIC_API;

/* A progress point (a counter-like mark), optionally annotated. */
extern int rocprofsys_user_progress(const char* name) ROCPROFSYS_PUBLIC_API;
extern int rocprofsys_user_annotated_progress(const char* name,
                                              rocprofsys_annotation_t* annotations,
                                              size_t count) ROCPROFSYS_PUBLIC_API;

/* Changes what the calls above are forwarded to: `callbacks` combined with the current
 * table as `mode` says; the former table goes to `previous` when it is not NULL.
 * Thread-safe; the table is process-wide. */
extern int rocprofsys_user_configure(rocprofsys_user_configure_mode_t mode,
                                     rocprofsys_user_callbacks_t callbacks,
                                     rocprofsys_user_callbacks_t* previous) ROCPROFSYS_PUBLIC_API;

/* The current table. */
extern int rocprofsys_user_get_callbacks(rocprofsys_user_callbacks_t* callbacks)
    ROCPROFSYS_PUBLIC_API;

/* A description of a rocprofsys_user_error_t value. */
extern const char* rocprofsys_user_error_string(int error) ROCPROFSYS_PUBLIC_API;

#if defined(__cplusplus)
}
#endif

#endif /* ROCPROFSYS_USER_H_ */
