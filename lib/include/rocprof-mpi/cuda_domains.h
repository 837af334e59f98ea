/* rocprof-mpi extension: the tracing domains of NVIDIA's CUDA, recorded through CUPTI.
 *
 * They are numbered past roctracer's own domains (ACTIVITY_DOMAIN_NUMBER), so rank files and
 * tools can keep them apart from HIP and HSA. In the API domains the operation id is CUPTI's
 * callback id (CUpti_runtime_api_trace_cbid / CUpti_driver_api_trace_cbid); the rank file's
 * op_names table holds their names. */
#ifndef ROCPROF_MPI_CUDA_DOMAINS_H
#define ROCPROF_MPI_CUDA_DOMAINS_H

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

#ifdef __cplusplus
}
#endif

#endif /* ROCPROF_MPI_CUDA_DOMAINS_H */
