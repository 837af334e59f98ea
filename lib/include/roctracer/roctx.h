/* rocprof-mpi: ROC-TX code annotation API (markers and ranges), libroctx64.so.
 *
 * Same names, types and symbol versions as the public ROC-TX 4.1 interface; our own text.
 * Every function may be called from any thread; without a tracer attached each call costs a
 * few nanoseconds. Messages are copied by the tracer when recorded; the caller keeps
 * ownership of its strings. */
#ifndef ROCPROF_MPI_ROCTX_H
#define ROCPROF_MPI_ROCTX_H

#include <stdint.h>

#if defined(ROCTX_EXPORTS)
#define ROCTX_API __attribute__((visibility("default")))
#else
#define ROCTX_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define ROCTX_VERSION_MAJOR 4
#define ROCTX_VERSION_MINOR 1

ROCTX_API uint32_t roctx_version_major(void);
ROCTX_API uint32_t roctx_version_minor(void);

/* An instantaneous event with a message. */
ROCTX_API void roctxMarkA(const char* message);
#define roctxMark(message) roctxMarkA(message)

/* Open a nested range on the calling thread. Returns the 0-based nesting level of the new
 * range (0 for an outermost range). */
ROCTX_API int roctxRangePushA(const char* message);
#define roctxRangePush(message) roctxRangePushA(message)

/* Close the innermost range of the calling thread. Returns the 0-based level of the range
 * closed, or -1 if the thread has no open range. */
ROCTX_API int roctxRangePop(void);

/* Identifies a range opened with roctxRangeStartA; unique within the process. */
typedef uint64_t roctx_range_id_t;

/* Open a range that any thread may close with roctxRangeStop. */
ROCTX_API roctx_range_id_t roctxRangeStartA(const char* message);
#define roctxRangeStart(message) roctxRangeStartA(message)

ROCTX_API void roctxRangeStop(roctx_range_id_t id);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ROCPROF_MPI_ROCTX_H */
