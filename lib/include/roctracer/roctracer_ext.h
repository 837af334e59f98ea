/* rocprof-mpi: tracing control and external correlation ids (roctracer-compatible).
 *
 * External ids let a layer above the runtimes (an MPI call, a user region) claim the work
 * issued inside it: while a thread's external-id stack is not empty, every activity record
 * that the thread causes is preceded in its pool by an ACTIVITY_DOMAIN_EXT_API record with
 * op ACTIVITY_EXT_OP_EXTERN_ID, the same correlation_id, and external_id = the top id. */
#ifndef ROCPROF_MPI_ROCTRACER_EXT_H
#define ROCPROF_MPI_ROCTRACER_EXT_H

#include "roctracer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Ops of ACTIVITY_DOMAIN_EXT_API. */
typedef enum { ACTIVITY_EXT_OP_MARK = 0, ACTIVITY_EXT_OP_EXTERN_ID = 1 } activity_ext_op_t;

/* Properties of ACTIVITY_DOMAIN_EXT_API (roctracer_set_properties): functions called by
 * roctracer_start and roctracer_stop, after the tracer changed state. Either may be NULL. */
typedef void (*roctracer_start_cb_t)(void);
typedef void (*roctracer_stop_cb_t)(void);
typedef struct {
  roctracer_start_cb_t start_cb;
  roctracer_stop_cb_t stop_cb;
} roctracer_ext_properties_t;

/* Resume / pause delivery of every callback and activity record, process-wide. Tracing is
 * running when the library loads. Enabled callbacks and activity stay configured. */
ROCTRACER_API void roctracer_start(void);
ROCTRACER_API void roctracer_stop(void);

/* Push `id` on the calling thread's external-id stack. The stack holds 256 entries; a push
 * beyond that returns ROCTRACER_STATUS_ERROR and changes nothing. */
ROCTRACER_API roctracer_status_t
roctracer_activity_push_external_correlation_id(activity_correlation_id_t id);

/* Pop the calling thread's top external id into *last_id (when not NULL). On an empty stack
 * returns ROCTRACER_STATUS_ERROR_MISMATCHED_EXTERNAL_CORRELATION_ID and leaves *last_id. */
ROCTRACER_API roctracer_status_t
roctracer_activity_pop_external_correlation_id(activity_correlation_id_t* last_id);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ROCPROF_MPI_ROCTRACER_EXT_H */
