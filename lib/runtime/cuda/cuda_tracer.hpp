// The CUDA backend: CUDA runtime and driver API calls through CUPTI's callback API, GPU work
// (kernels, copies, memsets, host waits) through its activity API, on the tracer's clock.
//
// One CUPTI subscription serves two kinds of consumer at once: the recorder, through a sink
// of rank-file rows, and roctracer clients, through the callback table and the pool routes
// of the CUDA domains (rocprof-mpi/cuda_domains.h). CUPTI is loaded only when tracing starts.
#pragma once

#include <cstdint>
#include <string>

#include <rocprof-mpi/cuda_recording.h>

namespace rocprof::runtime::cuda {

// Loads CUPTI and subscribes, once. False with `error` set when CUPTI or a CUDA driver is
// missing, or another CUPTI client (a profiler) holds the subscription.
bool start_cuda_tracing(std::string& error);

// roctracer clients' callbacks and routes are looked up from now on.
void serve_cuda_clients() noexcept;

// Rows go to `sink` from now on (it must live as long as the process): ApiCallRow without
// thread id and kernel name, with the launched kernel's mangled name beside it; ActivityRow
// without kernel name, likewise.
void set_cuda_sink(const rocprof_mpi_cuda_sink_t* sink) noexcept;

// Delivers every record CUPTI still holds (at exit, before a context is destroyed); work
// still running then is left out (CUPTI hands it over without times).
void flush_cuda_tracing() noexcept;
// Delivers CUPTI's buffers whose records are all complete (periodically, while work runs: a
// forced flush would hand over a long kernel before it has times).
void flush_completed_cuda_tracing() noexcept;

// Records CUPTI dropped for lack of buffer space.
std::uint64_t cuda_records_dropped() noexcept;

}  // namespace rocprof::runtime::cuda
