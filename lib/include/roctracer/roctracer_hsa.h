/* rocprof-mpi: HSA domains of the roctracer-compatible API.
 *
 * ACTIVITY_DOMAIN_HSA_API ops are the HSA_API_ID_* values of hsa_prof_str.h, generated at
 * build time from the installed hsa_api_trace.h: every function of the core, AMD extension,
 * image and finalizer tables, in table order. */
#ifndef ROCPROF_MPI_ROCTRACER_HSA_H
#define ROCPROF_MPI_ROCTRACER_HSA_H

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include "hsa_prof_str.h"
#include "roctracer.h"

/* Ops of ACTIVITY_DOMAIN_HSA_OPS. */
enum hsa_op_id_t {
  HSA_OP_ID_DISPATCH = 0,
  HSA_OP_ID_COPY = 1,
  HSA_OP_ID_BARRIER = 2,
  HSA_OP_ID_RESERVED1 = 3,
  HSA_OP_ID_NUMBER
};

/* Ops of ACTIVITY_DOMAIN_HSA_EVT. */
enum hsa_evt_id_t {
  HSA_EVT_ID_ALLOCATE = 0, /* memory allocated */
  HSA_EVT_ID_DEVICE = 1,   /* memory assigned to a device */
  HSA_EVT_ID_MEMCOPY = 2,  /* memory copy */
  HSA_EVT_ID_SUBMIT = 3,   /* packet submitted to a queue */
  HSA_EVT_ID_KSYMBOL = 4,  /* kernel symbol loaded or unloaded */
  HSA_EVT_ID_CODEOBJ = 5,  /* code object loaded or unloaded */
  HSA_EVT_ID_NUMBER
};

/* Properties of ACTIVITY_DOMAIN_HSA_OPS (roctracer_set_properties); reserved. */
struct hsa_ops_properties_t {
  void* reserved1[4];
};

#endif /* ROCPROF_MPI_ROCTRACER_HSA_H */
