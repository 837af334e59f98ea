/* rocprof-mpi: the record and domain vocabulary shared by every tracer interface.
 *
 * This header is part of the roctracer-compatible C API. Names, values and layouts match
 * the public roctracer 4.1 interface so that existing tools compile and link unchanged;
 * the text is our own. Usable from C (C99 and later) and C++. */
#ifndef ROCPROF_MPI_EXT_PROF_PROTOCOL_H
#define ROCPROF_MPI_EXT_PROF_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

/* The traced domains. HIP_OPS has two historical aliases (HCC_OPS, HIP_VDI). */
typedef enum {
  ACTIVITY_DOMAIN_HSA_API = 0, /* HSA runtime API calls */
  ACTIVITY_DOMAIN_HSA_OPS = 1, /* HSA asynchronous work: dispatches, copies, barriers */
  ACTIVITY_DOMAIN_HIP_OPS = 2, /* HIP asynchronous work */
  ACTIVITY_DOMAIN_HCC_OPS = ACTIVITY_DOMAIN_HIP_OPS,
  ACTIVITY_DOMAIN_HIP_VDI = ACTIVITY_DOMAIN_HIP_OPS,
  ACTIVITY_DOMAIN_HIP_API = 3, /* HIP runtime API calls */
  ACTIVITY_DOMAIN_KFD_API = 4, /* kernel driver API (not traced by this implementation) */
  ACTIVITY_DOMAIN_EXT_API = 5, /* external correlation records */
  ACTIVITY_DOMAIN_ROCTX = 6,   /* ROC-TX markers and ranges */
  ACTIVITY_DOMAIN_HSA_EVT = 7, /* HSA runtime events */
  ACTIVITY_DOMAIN_NUMBER
} activity_domain_t;

/* Called on entry and exit of a traced API call (once for ROC-TX calls).
 * domain: an activity_domain_t; cid: the operation id inside the domain;
 * data: the domain's callback data (hip_api_data_t, hsa_api_data_t, roctx_api_data_t),
 * valid only during the call; arg: the pointer given when the callback was enabled. */
typedef void (*activity_rtapi_callback_t)(uint32_t domain, uint32_t cid, const void* data,
                                          void* arg);

typedef uint32_t activity_kind_t;
typedef uint32_t activity_op_t;

typedef enum { ACTIVITY_API_PHASE_ENTER = 0, ACTIVITY_API_PHASE_EXIT = 1 } activity_api_phase_t;

/* Correlation ids tie an API call to the records it caused; unique within a process. */
typedef uint64_t activity_correlation_id_t;

/* Nanoseconds on the tracer's host clock (see roctracer_get_timestamp). */
typedef uint64_t roctracer_timestamp_t;

/* One activity record: 64 bytes on LP64, fixed stride, delivered in pool buffers.
 * Which union members are meaningful depends on the domain (docs/ROCTRACER.md). */
typedef struct activity_record_s {
  uint32_t domain;      /* activity_domain_t */
  activity_kind_t kind; /* domain-specific sub-kind (command kind, nesting level) */
  activity_op_t op;     /* operation id inside the domain */
  union {
    struct {
      activity_correlation_id_t correlation_id;
      roctracer_timestamp_t begin_ns;
      roctracer_timestamp_t end_ns;
    };
    struct {
      uint32_t se;    /* shader engine of a PC sample */
      uint64_t cycle; /* cycle of the sample */
      uint64_t pc;    /* program counter of the sample */
    } pc_sample;
  };
  union {
    struct {
      int device_id;     /* device that executed the work */
      uint64_t queue_id; /* queue or stream it ran on */
    };
    struct {
      uint32_t process_id; /* host process of an API/marker record */
      uint32_t thread_id;  /* host thread (Linux tid) */
    };
    struct {
      activity_correlation_id_t external_id; /* ACTIVITY_DOMAIN_EXT_API records */
    };
  };
  union {
    size_t bytes;             /* size of a copy */
    const char* kernel_name;  /* name of a dispatched kernel */
    const char* mark_message; /* ROC-TX message */
  };
} activity_record_t;

/* Hooks a runtime uses to produce records; kept for source compatibility. */
typedef void (*activity_sync_callback_t)(uint32_t cid, activity_record_t* record, const void* data,
                                         void* arg);
typedef void (*activity_async_callback_t)(uint32_t op, void* record, void* arg);

#endif /* ROCPROF_MPI_EXT_PROF_PROTOCOL_H */
