/* rocprof-mpi: ACTIVITY_DOMAIN_ROCTX ops and callback data (roctracer-compatible).
 *
 * A ROCTX callback is called once per ROC-TX call (there is no enter/exit pair); `data` points
 * to a roctx_api_data_t valid during the callback. For roctxRangeStartA the id is already
 * assigned when the callback runs. */
#ifndef ROCPROF_MPI_ROCTRACER_ROCTX_H
#define ROCPROF_MPI_ROCTRACER_ROCTX_H

#include "roctx.h"

enum roctx_api_id_t {
  ROCTX_API_ID_roctxMarkA = 0,
  ROCTX_API_ID_roctxRangePushA = 1,
  ROCTX_API_ID_roctxRangePop = 2,
  ROCTX_API_ID_roctxRangeStartA = 3,
  ROCTX_API_ID_roctxRangeStop = 4,
  ROCTX_API_ID_NUMBER,
};

/* Arguments of a ROC-TX call. `message` is NULL for roctxRangePop and roctxRangeStop; `id`
 * is set for roctxRangeStartA and roctxRangeStop. */
typedef struct roctx_api_data_s {
  union {
    struct {
      const char* message;
      roctx_range_id_t id;
    };
    struct {
      const char* message;
    } roctxMarkA;
    struct {
      const char* message;
    } roctxRangePushA;
    struct {
      const char* message;
    } roctxRangePop;
    struct {
      const char* message;
      roctx_range_id_t id;
    } roctxRangeStartA;
    struct {
      const char* message;
      roctx_range_id_t id;
    } roctxRangeStop;
  } args;
} roctx_api_data_t;

#endif /* ROCPROF_MPI_ROCTRACER_ROCTX_H */
