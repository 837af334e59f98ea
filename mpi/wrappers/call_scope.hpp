// What every generated wrapper does around its PMPI call: take the begin and end times, push
// a rank-qualified external correlation id for the duration (so records made inside carry
// it; on libroctracer64's stack for the thread, in place), and record the call with whatever
// its decoder filled in.
#pragma once

#include <mpi.h>

#include <cstdint>

#include <rocprof-mpi/recorder.h>

#include "mpi/runtime/mpi_state.hpp"
#include "mpi_functions.hpp"

namespace rocprof::mpi {

// One MPI call being recorded; decoders fill the fields they know.
struct CallRecord {
  Fn fn{};
  rocprof_mpi_mpi_call_t row{};
  // False for a call of an excluded function (--mpi-exclude): decoded, never emitted.
  bool recorded = true;

  // Records one more row for this call (same function, times and external id): used for
  // each request a single MPI_Waitall, _Waitsome, _Testall, _Startall... completes.
  void emit(const rocprof_mpi_mpi_call_t& extra) const noexcept;
};

// External ids of MPI calls: world rank in the top 20 bits, a per-process sequence below
// (ids are unique in the job, as the merge requires).
std::uint64_t next_external_id() noexcept;

bool recording_mpi() noexcept;

class CallScope {
 public:
  explicit CallScope(Fn fn) noexcept;
  ~CallScope();
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;

  // Right after the PMPI call returned.
  void returned() noexcept {
    if (active_ && call_.recorded) call_.row.end_ns = call_stamp();
  }
  CallRecord& call() noexcept { return call_; }
  // False when this process is not recording (the decoders are skipped then, except those
  // every rank must run: kAlwaysDecode).
  bool active() const noexcept { return active_; }

 private:
  CallRecord call_;
  bool active_;
  bool pushed_ = false;  // the external id went on the thread's stack (it was not full)
};

}  // namespace rocprof::mpi
