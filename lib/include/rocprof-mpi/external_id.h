/* rocprof-mpi extension to the roctracer API: read the calling thread's innermost external
 * correlation id (the last roctracer_activity_push_external_correlation_id not yet popped).
 * Lets a runtime backend that is not fed through roctracer's domains (CUDA, through CUPTI)
 * tie its API calls to the MPI call or user region around them. Exported by
 * libroctracer64.so in version node ROCPROF_MPI_1.0. */
#ifndef ROCPROF_MPI_EXTERNAL_ID_H
#define ROCPROF_MPI_EXTERNAL_ID_H

#include <stdint.h>

#include <roctracer/roctracer.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The innermost external id of the calling thread, 0 when none is pushed. No lock, no
 * system call. */
ROCTRACER_API uint64_t rocprof_mpi_current_external_id(void);

#ifdef __cplusplus
}
#endif

#endif /* ROCPROF_MPI_EXTERNAL_ID_H */
