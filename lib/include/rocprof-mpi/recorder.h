/* rocprof-mpi recorder API: record kinds that do not come from a runtime's API table.
 *
 * Exported by librocprof-mpi.so (the library `rocprof-mpi` preloads into traced processes). The MPI
 * layer, counter samplers and clock synchronisation call these; each records into the calling
 * thread's buffer without a lock, a system call or an allocation, and returns at once. When the
 * recorder is not recording (bad configuration, output failure, or the domain is off) they return
 * -1 and do nothing. Timestamps are nanoseconds of the trace clock (roctracer_get_timestamp). Any
 * thread. */
#ifndef ROCPROF_MPI_RECORDER_H
#define ROCPROF_MPI_RECORDER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ROCPROF_MPI_RECORDER_API __attribute__((visibility("default")))

/* One MPI call. Unused fields are 0, `peer` and `tag` -1. */
typedef struct rocprof_mpi_mpi_call_s {
  uint64_t begin_ns;
  uint64_t end_ns;
  uint64_t external_id;  /* the external correlation id the call pushed */
  uint64_t communicator; /* job-wide communicator id */
  uint64_t request;      /* request started or completed by the call */
  uint64_t bytes_sent;
  uint64_t bytes_received;
  int32_t peer; /* partner or root as a world rank */
  int32_t tag;
} rocprof_mpi_mpi_call_t;

/* `request` of a row that records a part of a call rather than a call: the receive half of
 * MPI_Sendrecv, written just before the call's own row (docs/FORMAT.md, format 1.1). */
#define ROCPROF_MPI_CALL_PART 1

/* The same, for a `function` name with static storage duration (a string literal, or a
 * table of them in a library that stays loaded): it is not copied, which saves the copy on
 * every call. */
ROCPROF_MPI_RECORDER_API int rocprof_mpi_record_mpi_call_static_name(
    const char* function, const rocprof_mpi_mpi_call_t* call);

/* 1 when MPI calls are to be stamped with the CPU's time-stamp counter (x86 rdtsc) and
 * recorded with rocprof_mpi_record_mpi_call_ticks, 0 when with the trace clock. Fixed once the
 * recorder has started. */
ROCPROF_MPI_RECORDER_API int rocprof_mpi_mpi_call_ticks(void);

/* rocprof_mpi_record_mpi_call_static_name with `begin_ns` and `end_ns` holding TSC ticks: the
 * recorder converts them to the trace clock before they are written. */
ROCPROF_MPI_RECORDER_API int rocprof_mpi_record_mpi_call_ticks(const char* function,
                                                               const rocprof_mpi_mpi_call_t* call);

/* A communicator this process belongs to (see docs/FORMAT.md, table communicators). */
typedef struct rocprof_mpi_communicator_s {
  uint64_t created_ns;
  uint64_t communicator; /* job-wide id */
  uint64_t parent;       /* id of the communicator it was made from, 0 if none */
  int32_t size;
  int32_t remote_size; /* intercommunicators, else 0 */
  int32_t rank;        /* this process's rank in it */
} rocprof_mpi_communicator_t;

/* 1 while recording, else 0. */
ROCPROF_MPI_RECORDER_API int rocprof_mpi_recorder_active(void);

/* `function` is the MPI function name ("MPI_Send"); it is copied. */
ROCPROF_MPI_RECORDER_API int rocprof_mpi_record_mpi_call(const char* function,
                                                         const rocprof_mpi_mpi_call_t* call);

/* `creator` names the creating function ("MPI_Comm_split"); it is copied. */
ROCPROF_MPI_RECORDER_API int rocprof_mpi_record_communicator(
    const char* creator, const rocprof_mpi_communicator_t* communicator);

/* A counter value of collection `session`; `counter` names it and is copied. */
ROCPROF_MPI_RECORDER_API int rocprof_mpi_record_counter_sample(uint32_t session,
                                                               const char* counter,
                                                               uint64_t timestamp_ns, double value);

/* Declares collection `session` (device -1 for host counters); `name` is copied. */
ROCPROF_MPI_RECORDER_API int rocprof_mpi_record_counter_session(uint32_t session, int32_t device_id,
                                                                const char* name,
                                                                uint64_t start_ns);

/* A clock measurement: at local time `local_ns` the reference rank's clock read
 * local_ns + offset_ns, measured with a round trip of `round_trip_ns`. */
ROCPROF_MPI_RECORDER_API int rocprof_mpi_record_clock_sample(uint64_t local_ns, int64_t offset_ns,
                                                             uint64_t round_trip_ns,
                                                             uint64_t uncertainty_ns,
                                                             int32_t reference_rank);

/* Device counters (ROCPROF_MPI_DEVICE_COUNTERS): the devices this process would sample,
 * as a set (bit 0: the host; bit 1 + g: GPU g); 0 when none are asked or it does not record.
 * The MPI layer gives each device of a node to one process of the node. */
ROCPROF_MPI_RECORDER_API uint64_t rocprof_mpi_counter_devices(void);

/* Starts sampling the counters of `devices` (a set as above) on a thread of the recorder's.
 * The first call with a non-empty set starts it; later calls do nothing. */
ROCPROF_MPI_RECORDER_API void rocprof_mpi_sample_counter_devices(uint64_t devices);

/* The process's world rank and size once MPI knows them (rewrites the file attributes at
 * the next flush; the file name stays). */
ROCPROF_MPI_RECORDER_API void rocprof_mpi_set_identity(int32_t rank, int32_t size);

/* Writes everything recorded so far to the file now (blocks until done). */
ROCPROF_MPI_RECORDER_API void rocprof_mpi_recorder_flush(void);

/* For librocprof-sys-user (the rocprofiler-systems user API), which looks this up in the
 * process: fills `callbacks` (a rocprofsys_user_callbacks_t) with the recorder's handlers of
 * user regions, progress points and trace control. 0 on success, -1 when not recording. */
struct rocprofsys_user_callbacks;
ROCPROF_MPI_RECORDER_API int rocprof_mpi_user_api_callbacks(
    struct rocprofsys_user_callbacks* callbacks);

#ifdef __cplusplus
}
#endif

#endif /* ROCPROF_MPI_RECORDER_H */
