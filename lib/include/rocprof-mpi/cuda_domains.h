/* rocprof-mpi extension: the tracing domains of NVIDIA's CUDA, recorded through CUPTI.
 *
 * They are numbered past roctracer's own domains (ACTIVITY_DOMAIN_NUMBER), so rank files and
 * tools can keep them apart from HIP and HSA. In the API domains the operation id is CUPTI's
 * callback id (CUpti_runtime_api_trace_cbid / CUpti_driver_api_trace_cbid); the rank file's
 * op_names table holds their names, and roctracer_op_string gives them too ("cudaMemcpy",
 * without CUPTI's "_v3020" version suffix).
 *
 * A roctracer client uses them like the HIP domains (docs/ROCTRACER.md):
 * - roctracer_enable_domain_callback / _op_callback on the two API domains: the callback runs
 *   on the calling thread at the call's enter and exit with a rocprof_mpi_cuda_api_data_t;
 * - roctracer_enable_domain_activity / _op_activity on any of the three: API records (begin,
 *   end, process and thread) and GPU work records (begin, end, device, queue = device << 32 |
 *   stream, kernel_name of a kernel or bytes of a copy or memset) arrive in the pool.
 * The correlation id is CUPTI's, the same in the API call and in the GPU work it launched.
 * roctracer_enable_callback / _activity without a domain leave the CUDA domains alone.
 * Enabling fails with ROCTRACER_STATUS_ERROR where CUPTI or the NVIDIA driver is missing.
 * C++ passes them to the roctracer functions as (activity_domain_t)ROCPROF_MPI_DOMAIN_...;
 * C needs no cast. */
#ifndef ROCPROF_MPI_CUDA_DOMAINS_H
#define ROCPROF_MPI_CUDA_DOMAINS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CUDA runtime API calls (cuda*). */
#define ROCPROF_MPI_DOMAIN_CUDA_RUNTIME_API 16
/* CUDA driver API calls (cu*). */
#define ROCPROF_MPI_DOMAIN_CUDA_DRIVER_API 17
/* Work on the GPU and the host waits for it, timed by CUPTI's activity API. */
#define ROCPROF_MPI_DOMAIN_CUDA_OPS 18

/* Operations of ROCPROF_MPI_DOMAIN_CUDA_OPS. The record's `kind` refines them: the
 * CUpti_ActivityMemcpyKind of a copy, the CUpti_ActivitySynchronizationType of a wait. */
typedef enum {
  ROCPROF_MPI_CUDA_OP_KERNEL = 0,
  ROCPROF_MPI_CUDA_OP_MEMCPY = 1,
  ROCPROF_MPI_CUDA_OP_MEMSET = 2,
  ROCPROF_MPI_CUDA_OP_SYNCHRONIZATION = 3,
  ROCPROF_MPI_CUDA_OP_GRAPH_LAUNCH = 4,
  ROCPROF_MPI_CUDA_OP_NUMBER = 5
} rocprof_mpi_cuda_op_t;

/* The callback data of the CUDA API domains. Its first two members are those of every
 * roctracer callback data type (hip_api_data_t ...). */
typedef struct {
  uint64_t correlation_id; /* CUPTI's correlation id of the call */
  uint32_t phase;          /* ACTIVITY_API_PHASE_ENTER or ACTIVITY_API_PHASE_EXIT */
  /* const CUpti_CallbackData*: the call's parameters (functionParams), its return value at
   * exit, the launched kernel's name (symbolName). Valid during the callback only. */
  const void* cupti_callback_data;
} rocprof_mpi_cuda_api_data_t;

#ifdef __cplusplus
}
#endif

#endif /* ROCPROF_MPI_CUDA_DOMAINS_H */
