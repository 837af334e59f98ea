// MPI_Init*, MPI_Finalize and MPI_Abort: the rank becomes known (file attributes, external
// ids), communicators and clocks are set up; at finalisation the last clock measurement and a
// flush of the rank file run while MPI still works; an abort flushes first.
#pragma once

#include "mpi/decode/decoder_base.hpp"

namespace rocprof::mpi {

// After a successful MPI_Init / MPI_Init_thread.
void on_initialized() noexcept;
// Before MPI_Abort takes the job down.
void on_abort() noexcept;
// After MPI_Finalize.
void on_finalized() noexcept;

template <>
struct Decoder<Fn::MPI_Init> {
  static void before(CallRecord&, int*, char***) noexcept {}
  static void after(CallRecord&, int result, int*, char***) noexcept {
    if (result == MPI_SUCCESS) on_initialized();
  }
};

template <>
struct Decoder<Fn::MPI_Init_thread> {
  static void before(CallRecord&, int*, char***, int, int*) noexcept {}
  static void after(CallRecord&, int result, int*, char***, int, int*) noexcept {
    if (result == MPI_SUCCESS) on_initialized();
  }
};

template <>
struct Decoder<Fn::MPI_Finalize> {
  static void before(CallRecord&) noexcept {}
  static void after(CallRecord&, int) noexcept { on_finalized(); }
};

template <>
struct Decoder<Fn::MPI_Abort> {
  static void before(CallRecord& call, MPI_Comm comm, int errorcode) noexcept {
    // MPI_Abort does not return: its row is written now, then the file is flushed.
    call.row.tag = errorcode;  // the abort's error code, for the timeline
    call.row.communicator = communicator_id(comm);
    call.row.end_ns = call_stamp();
    call.emit(call.row);
    on_abort();
  }
  static void after(CallRecord&, int, MPI_Comm, int) noexcept {}
};

}  // namespace rocprof::mpi
