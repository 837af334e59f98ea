/* rocprof-mpi extension to the roctracer API: delivery counters of an activity pool.
 *
 * A pool never blocks the traced application: when its pool thread falls behind, records
 * are dropped and counted. These counters tell how many. Exported by libroctracer64.so in
 * version node ROCPROF_MPI_1.0. */
#ifndef ROCPROF_MPI_POOL_STATS_H
#define ROCPROF_MPI_POOL_STATS_H

#include <stdint.h>

#include <roctracer/roctracer.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  uint64_t delivered_records; /* records handed to the buffer callback so far */
  uint64_t dropped_records;   /* records lost because no buffer space was free */
} rocprof_mpi_pool_stats_t;

/* Fill *stats for `pool` (NULL: the default pool). Call roctracer_flush_activity_expl first
 * for final numbers. Returns ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT for a pool that is not
 * open or a NULL `stats`. Any thread. */
ROCTRACER_API roctracer_status_t rocprof_mpi_pool_stats(roctracer_pool_t* pool,
                                                        rocprof_mpi_pool_stats_t* stats);

#ifdef __cplusplus
}
#endif

#endif /* ROCPROF_MPI_POOL_STATS_H */
