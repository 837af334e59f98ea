/* rocprof-mpi extension to the roctracer API: read the calling thread's innermost external
 * correlation id (the last roctracer_activity_push_external_correlation_id not yet popped).
 * Lets a runtime backend that is not fed through roctracer's domains (CUDA, through CUPTI)
 * tie its API calls to the MPI call or user region around them. Exported by
 * libroctracer64.so in version node ROCPROF_MPI_1.0. */
#ifndef ROCPROF_MPI_EXTERNAL_ID_H
#define ROCPROF_MPI_EXTERNAL_ID_H

#include <stddef.h>
#include <stdint.h>

#include <roctracer/roctracer.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The innermost external id of the calling thread, 0 when none is pushed. No lock, no
 * system call. */
ROCTRACER_API uint64_t rocprof_mpi_current_external_id(void);

/* Most external ids one thread can have pushed at once. */
#define ROCPROF_MPI_EXTERNAL_ID_DEPTH 256

/* A thread's external correlation ids: ids[0 .. depth) are pushed, the innermost last. It is
 * the stack roctracer_activity_push/pop_external_correlation_id work on. */
typedef struct rocprof_mpi_external_id_stack_s {
  uint32_t depth;
  uint32_t reserved;
  uint64_t ids[ROCPROF_MPI_EXTERNAL_ID_DEPTH];
} rocprof_mpi_external_id_stack_t;

/* The calling thread's stack, valid while the thread lives (and in a child forked from it).
 * For a layer that pushes and pops an id around each of very many calls (the MPI wrappers):
 * it keeps the address per thread and pushes and pops in place, on its own thread only,
 * with no call across libraries. */
ROCTRACER_API rocprof_mpi_external_id_stack_t* rocprof_mpi_thread_external_ids(void);

/* In-place operations on a stack (what the push/pop API calls do). Push: 1, or 0 when the
 * stack is full and nothing was pushed. Pop: 1 with the innermost id in *id (when not NULL),
 * or 0 when the stack is empty. Top: the innermost id, 0 when the stack is empty. */
static inline int rocprof_mpi_external_id_push(rocprof_mpi_external_id_stack_t* stack,
                                               uint64_t id) {
  if (stack->depth >= ROCPROF_MPI_EXTERNAL_ID_DEPTH) return 0;
  stack->ids[stack->depth++] = id;
  return 1;
}
static inline int rocprof_mpi_external_id_pop(rocprof_mpi_external_id_stack_t* stack,
                                              uint64_t* id) {
  if (stack->depth == 0) return 0;
  --stack->depth;
  if (id != NULL) *id = stack->ids[stack->depth];
  return 1;
}
static inline uint64_t rocprof_mpi_external_id_top(const rocprof_mpi_external_id_stack_t* stack) {
  return stack->depth == 0 ? 0 : stack->ids[stack->depth - 1];
}

#ifdef __cplusplus
}
#endif

#endif /* ROCPROF_MPI_EXTERNAL_ID_H */
