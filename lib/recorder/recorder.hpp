// The recording tool inside a traced process: opens the rank file, subscribes to the enabled
// domains through a roctracer pool, and runs the writer thread that flushes the file every
// flush interval, on request from a fatal signal, and at exit.
#pragma once

#include <cstdint>
#include <string>

#include <roctracer/roctracer.h>

namespace rocprof::recorder {

// The recorder's pool while recording, else nullptr (relaxed: a racing record is either
// written or skipped, both fine).
roctracer_pool_t* active_pool() noexcept;
// The recorder's pool whenever it records anything (user regions are recorded whatever the
// domains), else nullptr.
roctracer_pool_t* recording_pool() noexcept;

// Whether MPI calls are stamped with TSC ticks (rocprof_mpi_mpi_call_ticks); fixed once the
// recorder started.
bool recording_in_ticks() noexcept;

// Starts recording (from the library constructor). On a bad setting or an output problem it
// prints one message on stderr and leaves tracing off.
void start_recording() noexcept;

// Writes everything recorded so far and closes the file (atexit; idempotent).
void finish_recording() noexcept;

// Before the process execs another program (which skips atexit): writes and closes the file,
// removing it if it recorded nothing. Returns the environment entry ("NAME=VALUE") the next
// image must see to record as this process, or "" when not recording here.
std::string prepare_exec() noexcept;

// From a signal handler (async-signal-safe): asks the writer thread to write everything
// recorded so far (and close the file when `close`), waiting at most the configured time.
void flush_from_signal(bool close) noexcept;

// Gives back the disk space reserved past the rank file's end, which no close will give back
// now (system calls only). The file keeps what was flushed.
void release_reservation_at_exit() noexcept;

// From _exit/_Exit: closes the file as finish_recording does, but waits for the writer at
// most the signal timeout; if it does not finish, gives back the reserved space.
void finish_at_quick_exit() noexcept;

// Writes everything recorded so far now, waiting for it (not from a signal handler).
void flush_now() noexcept;

// The MPI layer's word on this process's world rank and size (updates the file attributes).
void set_identity(std::int32_t rank, std::int32_t size) noexcept;

// Device counters (counter_sampling.hpp): the devices this process would sample (0 when not
// recording or none asked), and the start of sampling those the MPI layer gave it.
std::uint64_t counter_devices() noexcept;
void sample_counter_devices(std::uint64_t devices) noexcept;

// Whether the calling thread is one of the recorder's own (writer, pool delivery).
bool on_recorder_thread() noexcept;

// The calling thread's Linux thread id (cached per thread).
std::uint32_t current_thread_id() noexcept;

}  // namespace rocprof::recorder
