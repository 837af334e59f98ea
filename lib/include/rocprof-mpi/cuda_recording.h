/* rocprof-mpi internal: how the recorder (librocprof-mpi.so) takes the CUDA backend's records
 * from libroctracer64, which owns the one CUPTI subscription of the process. Not for
 * applications: roctracer clients use the CUDA domains of cuda_domains.h instead. */
#ifndef ROCPROF_MPI_CUDA_RECORDING_H
#define ROCPROF_MPI_CUDA_RECORDING_H

#include <stddef.h>
#include <stdint.h>

#include <roctracer/roctracer.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Rows of the rank-file format of the same build (lib/format/records.hpp). */
typedef struct {
  /* An API call ended, on its thread: an ApiCallRow; `symbol`: launched kernel or NULL. */
  void (*api_call)(const void* row, const char* symbol);
  /* GPU work was timed, on CUPTI's thread: an ActivityRow; `kernel`: its name or NULL. */
  void (*activity)(const void* row, const char* kernel);
} rocprof_mpi_cuda_sink_t;

/* Starts CUDA tracing with `sink` (which must stay valid) receiving every call and every GPU
 * operation. On failure returns ROCTRACER_STATUS_ERROR and writes why into `error`. */
ROCTRACER_API roctracer_status_t rocprof_mpi_cuda_record(const rocprof_mpi_cuda_sink_t* sink,
                                                         char* error, size_t error_size);

/* Hands over every record CUPTI still holds (at the end: work still running is left out). */
ROCTRACER_API void rocprof_mpi_cuda_flush(void);

/* Hands over CUPTI's buffers whose records are all complete (while the program runs). */
ROCTRACER_API void rocprof_mpi_cuda_flush_completed(void);

/* Records CUPTI dropped for lack of buffer space. */
ROCTRACER_API uint64_t rocprof_mpi_cuda_dropped_records(void);

#ifdef __cplusplus
}
#endif

#endif /* ROCPROF_MPI_CUDA_RECORDING_H */
