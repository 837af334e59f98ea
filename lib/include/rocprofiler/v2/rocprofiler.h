/* The rocprofiler v2 device profiling API (ROCm 5.5-5.7's rocprofiler/v2/rocprofiler.h): the
 * library versioning and status codes, initialize/finalize, and device profiling sessions,
 * which sample counters of a device (a GPU, or the host) at the moments the caller polls,
 * whatever runs on it; and code-object capture (ROCm 6.0's addition), which lists the GPU code
 * objects the process loaded. Names, values and layouts match ROCm's header so that programs
 * written for it compile and link unchanged against librocprofiler64v2; only the part of the
 * API that rocprof-mpi implements is declared here. docs/DEVICE_COUNTERS.md lists the
 * counters, docs/ROCTRACER.md describes code-object capture. */
#ifndef ROCPROF_MPI_ROCPROFILER_V2_ROCPROFILER_H_
#define ROCPROF_MPI_ROCPROFILER_V2_ROCPROFILER_H_

#include <stddef.h>
#include <stdint.h>

#if !defined(ROCPROFILER_CALL)
#define ROCPROFILER_CALL
#endif
#if !defined(ROCPROFILER_EXPORT_DECORATOR)
#define ROCPROFILER_EXPORT_DECORATOR __attribute__((visibility("default")))
#endif
#if !defined(ROCPROFILER_IMPORT_DECORATOR)
#define ROCPROFILER_IMPORT_DECORATOR
#endif
#define ROCPROFILER_EXPORT ROCPROFILER_EXPORT_DECORATOR ROCPROFILER_CALL
#define ROCPROFILER_IMPORT ROCPROFILER_IMPORT_DECORATOR ROCPROFILER_CALL
#if !defined(ROCPROFILER)
#if defined(ROCPROFILER_EXPORTS)
#define ROCPROFILER_API ROCPROFILER_EXPORT
#else
#define ROCPROFILER_API ROCPROFILER_IMPORT
#endif
#endif

/* Every function below is exported under the symbol version "ROCPROFILER_9.0". */
#define ROCPROFILER_VERSION_9_0

#define ROCPROFILER_VERSION_MAJOR 9
#define ROCPROFILER_VERSION_MINOR 0

#ifdef __cplusplus
extern "C" {
#endif

/* The installed library's version (usable before rocprofiler_initialize). */
ROCPROFILER_API uint32_t rocprofiler_version_major();
ROCPROFILER_API uint32_t rocprofiler_version_minor();

/* What a call returns: 0 on success, a negative code otherwise. */
typedef enum {
  ROCPROFILER_STATUS_SUCCESS = 0,
  ROCPROFILER_STATUS_ERROR = -1,
  ROCPROFILER_STATUS_ERROR_ALREADY_INITIALIZED = -2,
  ROCPROFILER_STATUS_ERROR_NOT_INITIALIZED = -3,
  ROCPROFILER_STATUS_ERROR_SESSION_MISSING_BUFFER = -4,
  ROCPROFILER_STATUS_ERROR_TIMESTAMP_NOT_APPLICABLE = -5,
  ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND = -6,
  ROCPROFILER_STATUS_ERROR_AGENT_INFORMATION_MISSING = -7,
  ROCPROFILER_STATUS_ERROR_QUEUE_NOT_FOUND = -8,
  ROCPROFILER_STATUS_ERROR_QUEUE_INFORMATION_MISSING = -9,
  ROCPROFILER_STATUS_ERROR_KERNEL_NOT_FOUND = -10,
  ROCPROFILER_STATUS_ERROR_KERNEL_INFORMATION_MISSING = -11,
  ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND = -12,
  ROCPROFILER_STATUS_ERROR_COUNTER_INFORMATION_MISSING = -13,
  ROCPROFILER_STATUS_ERROR_TRACER_API_DATA_NOT_FOUND = -14,
  ROCPROFILER_STATUS_ERROR_TRACER_API_DATA_INFORMATION_MISSING = -15,
  ROCPROFILER_STATUS_ERROR_INCORRECT_DOMAIN = -16,
  ROCPROFILER_STATUS_ERROR_SESSION_NOT_FOUND = -17,
  ROCPROFILER_STATUS_ERROR_CORRUPTED_SESSION_BUFFER = -18,
  ROCPROFILER_STATUS_ERROR_RECORD_CORRUPTED = -19,
  ROCPROFILER_STATUS_ERROR_INCORRECT_REPLAY_MODE = -20,
  ROCPROFILER_STATUS_ERROR_SESSION_MISSING_FILTER = -21,
  ROCPROFILER_STATUS_ERROR_INCORRECT_SIZE = -22,
  ROCPROFILER_STATUS_ERROR_INCORRECT_FLUSH_INTERVAL = -23,
  ROCPROFILER_STATUS_ERROR_SESSION_FILTER_DATA_MISMATCH = -24,
  ROCPROFILER_STATUS_ERROR_FILTER_DATA_CORRUPTED = -25,
  ROCPROFILER_STATUS_ERROR_CORRUPTED_LABEL_DATA = -26,
  ROCPROFILER_STATUS_ERROR_RANGE_STACK_IS_EMPTY = -27,
  ROCPROFILER_STATUS_ERROR_PASS_NOT_STARTED = -28,
  ROCPROFILER_STATUS_ERROR_HAS_ACTIVE_SESSION = -29,
  ROCPROFILER_STATUS_ERROR_SESSION_NOT_ACTIVE = -30,
  ROCPROFILER_STATUS_ERROR_FILTER_NOT_FOUND = -31,
  ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND = -32,
  ROCPROFILER_STATUS_ERROR_FILTER_NOT_SUPPORTED = -33,
  ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENTS = -34,
  ROCPROFILER_STATUS_ERROR_INVALID_OPERATION_ID = -35,
  ROCPROFILER_STATUS_ERROR_INVALID_DOMAIN_ID = -36,
  ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED = -37,
  ROCPROFILER_STATUS_ERROR_MISMATCHED_EXTERNAL_CORRELATION_ID = -38
} rocprofiler_status_t;

/* A text for a status (never NULL; a static string). */
ROCPROFILER_API const char* rocprofiler_error_str(rocprofiler_status_t status)
    ROCPROFILER_VERSION_9_0;

/* Called once before any session is made, and once after the last is destroyed: a second
 * initialize returns ..._ALREADY_INITIALIZED, a finalize without one ..._NOT_INITIALIZED.
 * Finalize destroys the sessions still open. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_initialize() ROCPROFILER_VERSION_9_0;
ROCPROFILER_API rocprofiler_status_t rocprofiler_finalize() ROCPROFILER_VERSION_9_0;

typedef struct {
  uint64_t handle;
} rocprofiler_session_id_t;

typedef struct {
  double value;
} rocprofiler_counter_value_t;

/* One counter's value as a poll reads it: the counter's name and its value. */
typedef struct {
  char metric_name[64];
  rocprofiler_counter_value_t value;
} rocprofiler_device_profile_metric_t;

/* Makes a session sampling `num_counters` counters named in `counter_names` (each a host
 * counter, or a counter of GPU `gpu_index`); host CPU counters cover CPU `cpu_index`, or every
 * CPU the process may use when it is -1. Returns ..._COUNTER_NOT_FOUND for a name no backend
 * offers here, ..._AGENT_NOT_FOUND for a CPU or GPU index that does not exist. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_device_profiling_session_create(
    const char** counter_names, uint64_t num_counters, rocprofiler_session_id_t* session_id,
    int cpu_index, int gpu_index) ROCPROFILER_VERSION_9_0;

/* Starts the counters: rates and utilisations are measured from here to each poll. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_device_profiling_session_start(
    rocprofiler_session_id_t session_id) ROCPROFILER_VERSION_9_0;

/* Reads every counter now, into data[0 .. num_counters - 1] in the order they were named
 * (blocks while the devices are read). ..._SESSION_NOT_ACTIVE before start or after stop. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_device_profiling_session_poll(
    rocprofiler_session_id_t session_id,
    rocprofiler_device_profile_metric_t* data) ROCPROFILER_VERSION_9_0;

ROCPROFILER_API rocprofiler_status_t rocprofiler_device_profiling_session_stop(
    rocprofiler_session_id_t session_id) ROCPROFILER_VERSION_9_0;

/* ..._SESSION_NOT_FOUND for a session never made, or destroyed already. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_device_profiling_session_destroy(
    rocprofiler_session_id_t session_id) ROCPROFILER_VERSION_9_0;

/* ---- Code-object capture ---- */

/* Nanoseconds on the trace clock (CLOCK_BOOTTIME). */
typedef struct {
  uint64_t value;
} rocprofiler_timestamp_t;

/* A capture record's handle. */
typedef struct {
  uint64_t handle;
} rocprofiler_record_id_t;

/* One GPU code object the process loaded. */
typedef struct {
  /* Where the runtime loaded it from: "file://PATH#offset=N&size=N" or
   * "memory://PID#offset=0xADDRESS&size=N". */
  const char* filepath;
  /* The address it is loaded at (its load base on the GPU). */
  uint64_t base_address;
  /* A copy of its bytes where the capture mode asks for one, else NULL. */
  const char* data;
  /* The number of bytes at `data`, 0 without a copy. */
  uint64_t size;
  /* When the capture first saw it loaded, and when it saw it gone (0: still loaded). */
  rocprofiler_timestamp_t clock_start;
  rocprofiler_timestamp_t clock_end;
} rocprofiler_intercepted_codeobj_t;

/* What a capture keeps of each code object. */
typedef enum {
  /* Where it came from and where it is loaded. */
  ROCPROFILER_CAPTURE_SYMBOLS_ONLY = 0,
  /* That, and a copy of the bytes of code objects loaded from memory. */
  ROCPROFILER_CAPTURE_COPY_MEMORY = 1,
  /* That, and a copy of the bytes of every code object, from a file or memory. */
  ROCPROFILER_CAPTURE_COPY_FILE_AND_MEMORY = 2
} rocprofiler_codeobj_capture_mode_t;

/* What rocprofiler_codeobj_capture_get hands out: `count` code objects at `symbols`, and the
 * record's user data. */
typedef struct {
  const rocprofiler_intercepted_codeobj_t* symbols;
  uint64_t count;
  uint64_t userdata;
} rocprofiler_codeobj_symbols_t;

/* Makes a capture record (not started) keeping what `mode` says; `userdata` comes back with
 * each get. ..._INVALID_ARGUMENTS for a NULL `id` or an unknown mode. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_codeobj_capture_create(
    rocprofiler_record_id_t* id, rocprofiler_codeobj_capture_mode_t mode,
    uint64_t userdata) ROCPROFILER_VERSION_9_0;

/* The code objects captured so far (refreshed first while the record is started). The list
 * stays valid until the next get or free of the record. ..._INVALID_ARGUMENTS for an unknown
 * record (never made, or freed) or a NULL `capture`. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_codeobj_capture_get(
    rocprofiler_record_id_t id, rocprofiler_codeobj_symbols_t* capture) ROCPROFILER_VERSION_9_0;

/* Forgets the record; what get handed out becomes invalid. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_codeobj_capture_free(rocprofiler_record_id_t id)
    ROCPROFILER_VERSION_9_0;

/* Captures the code objects loaded now, and those loaded from here until stop (seen at each
 * get and at stop). */
ROCPROFILER_API rocprofiler_status_t rocprofiler_codeobj_capture_start(rocprofiler_record_id_t id)
    ROCPROFILER_VERSION_9_0;

/* Captures what is loaded now and stops; a stop right after a start is a snapshot. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_codeobj_capture_stop(rocprofiler_record_id_t id)
    ROCPROFILER_VERSION_9_0;

#ifdef __cplusplus
}
#endif

#endif /* ROCPROF_MPI_ROCPROFILER_V2_ROCPROFILER_H_ */
