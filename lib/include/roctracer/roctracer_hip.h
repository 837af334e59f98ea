/* rocprof-mpi: HIP domains of the roctracer-compatible API.
 *
 * ACTIVITY_DOMAIN_HIP_API ops are the HIP_API_ID_* values of the installed HIP runtime's
 * hip/amd_detail/hip_prof_str.h (HIP 5.2 on Debian 12), whose hip_api_data_t is the callback
 * data. ACTIVITY_DOMAIN_HIP_OPS ops are listed below. */
#ifndef ROCPROF_MPI_ROCTRACER_HIP_H
#define ROCPROF_MPI_ROCTRACER_HIP_H

#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_runtime_api.h>
/* hip_prof_str.h uses the HIP types declared above; keep it second. */
#include <hip/amd_detail/hip_prof_str.h>

#include "roctracer.h"

typedef enum {
  HIP_OP_ID_DISPATCH = 0,
  HIP_OP_ID_COPY = 1,
  HIP_OP_ID_BARRIER = 2,
  HIP_OP_ID_NUMBER = 3
} hip_op_id_t;

#endif /* ROCPROF_MPI_ROCTRACER_HIP_H */
