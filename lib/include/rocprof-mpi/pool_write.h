/* rocprof-mpi extension to the roctracer API: write caller-formatted records into a pool.
 *
 * Lets a recorder put its own record kinds (MPI calls, counter samples, clock samples) in the
 * same lock-free per-thread buffers as the roctracer activity records, so one pool thread
 * delivers everything in per-thread order. Exported by libroctracer64.so in version node
 * ROCPROF_MPI_1.0. */
#ifndef ROCPROF_MPI_POOL_WRITE_H
#define ROCPROF_MPI_POOL_WRITE_H

#include <stdint.h>

#include <roctracer/roctracer.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Record slots have the stride of activity_record_t. */
#define ROCPROF_MPI_SLOT_BYTES 64
/* Most slots one write may take. */
#define ROCPROF_MPI_MAX_SLOTS 4
/* Domain values at or above this are private record kinds: the first uint32_t of a written
 * record must be one, so buffer callbacks can tell them from roctracer records. */
#define ROCPROF_MPI_PRIVATE_DOMAIN_BASE 0x524d0000u
/* A private domain with this bit set is written even while tracing is stopped
 * (roctracer_stop): records that must never be missing, such as clock measurements and the
 * user regions an application marks. */
#define ROCPROF_MPI_ALWAYS_RECORDED 0x8000u

/* Copies `slot_count` (1..ROCPROF_MPI_MAX_SLOTS) slots of 64 bytes from `slots` into the
 * calling thread's buffer of `pool`, contiguous and in the thread's order. If `text` is not
 * NULL, a copy of it (at most 1023 bytes, NUL-terminated) goes into the same buffer and its
 * address replaces the 8 bytes at offset 8 of the first slot; it lives as long as the
 * records. The pool must stay open during the call (the caller owns it). No lock, no system
 * call, no allocation in the steady state. Returns ROCTRACER_STATUS_SUCCESS, or
 * ROCTRACER_STATUS_ERROR when the record was dropped (no buffer space; counted in the
 * pool's dropped records) or tracing is stopped (unless ROCPROF_MPI_ALWAYS_RECORDED), or
 * ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT for a NULL pool/slots, a bad count or a domain below the
 * private base. Any thread. */
ROCTRACER_API roctracer_status_t rocprof_mpi_pool_write(roctracer_pool_t* pool, const void* slots,
                                                        uint32_t slot_count, const char* text);

/* Space for `slot_count` slots written in place, for callers that fill records field by
 * field: rocprof_mpi_pool_reserve, write the slots, rocprof_mpi_pool_commit, on the same
 * thread and without returning in between (the pool waits for a reservation to be
 * committed before it can be closed). The same rules as rocprof_mpi_pool_write otherwise. */
typedef struct rocprof_mpi_pool_reservation_s {
  void* slots;    /* where to write: slot_count * ROCPROF_MPI_SLOT_BYTES bytes */
  void* internal; /* for rocprof_mpi_pool_commit */
} rocprof_mpi_pool_reservation_t;

/* Returns ROCTRACER_STATUS_SUCCESS with `reservation` filled, or an error as
 * rocprof_mpi_pool_write (nothing to commit then). */
ROCTRACER_API roctracer_status_t rocprof_mpi_pool_reserve(
    roctracer_pool_t* pool, uint32_t slot_count, rocprof_mpi_pool_reservation_t* reservation);
/* Publishes the reserved slots. The first uint32_t of the first slot must be a private domain. */
ROCTRACER_API void rocprof_mpi_pool_commit(const rocprof_mpi_pool_reservation_t* reservation);

/* From now on the ROC-TX records going into `pool` carry TSC ticks (x86 rdtsc) in begin_ns
 * and end_ns instead of nanoseconds: a cheaper read, for a consumer that converts them (the
 * recorder). Other records keep nanoseconds. Call before the pool receives ROC-TX records. */
ROCTRACER_API roctracer_status_t rocprof_mpi_pool_stamp_markers_in_ticks(roctracer_pool_t* pool);

/* Tracing on (nonzero) or off (0) for the calling thread alone, on top of roctracer_start and
 * roctracer_stop: while off, the thread's API calls, ROC-TX markers and private records
 * (except ROCPROF_MPI_ALWAYS_RECORDED ones) are not recorded. On by default. */
ROCTRACER_API void rocprof_mpi_set_thread_tracing(int on);

#ifdef __cplusplus
}
#endif

#endif /* ROCPROF_MPI_POOL_WRITE_H */
