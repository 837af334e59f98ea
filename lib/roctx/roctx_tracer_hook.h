/* rocprof-mpi: how a tracer attaches to libroctx64 (shared by libroctx64 and the tracer).
 *
 * libroctx64 exports roctxRegisterTracerCallback (version node ROCTX_4.1). A tracer passes a
 * function that libroctx64 then calls once for every ROC-TX call with domain
 * ACTIVITY_DOMAIN_ROCTX, the ROCTX_API_ID_* op and a roctx_api_data_t*. For
 * roctxRangeStartA the tracer may overwrite data->args.id: libroctx64 returns that value as
 * the range id, so range ids and the tracer's correlation ids share one space. Passing NULL
 * detaches. The signature matches the hook of ROCm 5.4 and later. */
#ifndef ROCPROF_MPI_ROCTX_TRACER_HOOK_H
#define ROCPROF_MPI_ROCTX_TRACER_HOOK_H

#include <stdint.h>

#include <roctracer/ext/prof_protocol.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int (*roctx_tracer_callback_t)(activity_domain_t domain, uint32_t operation_id, void* data);

#define ROCTX_TRACER_HOOK_SYMBOL "roctxRegisterTracerCallback"
typedef void (*roctx_register_tracer_callback_fn)(roctx_tracer_callback_t callback);

#ifdef __cplusplus
}
#endif

#endif /* ROCPROF_MPI_ROCTX_TRACER_HOOK_H */
