// Decoders of the calls that complete or restart requests. A completion row carries the
// request handle (as the starting call recorded it) and what the request moved: for a
// receive the actual source, tag and size from its status. MPI_Waitall, _Waitsome,
// _Testall, _Testsome and _Startall record one row per request besides the call's own row
// (request 0).
#pragma once

#include <vector>

#include "mpi/decode/communicators.hpp"
#include "mpi/decode/decoder_base.hpp"
#include "mpi/decode/requests.hpp"
#include "mpi/decode/support.hpp"

namespace rocprof::mpi {
namespace completion {

// Before the call: the handles (completion sets them to MPI_REQUEST_NULL) and what each
// request was, per thread. After the call MPI may give a completed request's handle to a
// request another thread starts, so nothing is looked up by handle then.
std::vector<MPI_Request>& snapshot(const MPI_Request* requests, int count) noexcept;

// Fills `row` with what completing the snapshot's request `index` meant (and forgets it,
// unless persistent).
void describe(rocprof_mpi_mpi_call_t& row, std::size_t index, const MPI_Status* status) noexcept;

// One row per completed request: indices[k] into the snapshot (or k), status k.
void emit_each(const CallRecord& call, const int* indices, int count,
               const MPI_Status* statuses) noexcept;

// A request was started (MPI_Start*): what it will move.
void describe_start(rocprof_mpi_mpi_call_t& row, MPI_Request request) noexcept;

}  // namespace completion

template <>
struct Decoder<Fn::MPI_Wait> {
  static void before(CallRecord&, MPI_Request* request, MPI_Status*& status) noexcept {
    completion::snapshot(request, request != nullptr ? 1 : 0);
    if (status == MPI_STATUS_IGNORE) status = scratch_status();
  }
  static void after(CallRecord& call, int result, MPI_Request*, MPI_Status* status) noexcept {
    if (result == MPI_SUCCESS) completion::describe(call.row, 0, status);
  }
};

template <>
struct Decoder<Fn::MPI_Test> {
  static void before(CallRecord&, MPI_Request* request, int*, MPI_Status*& status) noexcept {
    completion::snapshot(request, request != nullptr ? 1 : 0);
    if (status == MPI_STATUS_IGNORE) status = scratch_status();
  }
  static void after(CallRecord& call, int result, MPI_Request*, int* flag,
                    MPI_Status* status) noexcept {
    if (result == MPI_SUCCESS && flag != nullptr && *flag != 0)
      completion::describe(call.row, 0, status);
  }
};

template <>
struct Decoder<Fn::MPI_Waitall> {
  static void before(CallRecord&, int count, MPI_Request* requests,
                     MPI_Status*& statuses) noexcept {
    completion::snapshot(requests, count);
    if (statuses == MPI_STATUSES_IGNORE && count > 0) {
      if (MPI_Status* scratch = scratch_statuses(count)) statuses = scratch;
    }
  }
  static void after(CallRecord& call, int result, int count, MPI_Request*,
                    MPI_Status* statuses) noexcept {
    if (result == MPI_SUCCESS) completion::emit_each(call, nullptr, count, statuses);
  }
};

template <>
struct Decoder<Fn::MPI_Testall> {
  static void before(CallRecord&, int count, MPI_Request* requests, int*,
                     MPI_Status*& statuses) noexcept {
    completion::snapshot(requests, count);
    if (statuses == MPI_STATUSES_IGNORE && count > 0) {
      if (MPI_Status* scratch = scratch_statuses(count)) statuses = scratch;
    }
  }
  static void after(CallRecord& call, int result, int count, MPI_Request*, int* flag,
                    MPI_Status* statuses) noexcept {
    if (result == MPI_SUCCESS && flag != nullptr && *flag != 0)
      completion::emit_each(call, nullptr, count, statuses);
  }
};

template <>
struct Decoder<Fn::MPI_Waitany> {
  static void before(CallRecord&, int count, MPI_Request* requests, int*,
                     MPI_Status*& status) noexcept {
    completion::snapshot(requests, count);
    if (status == MPI_STATUS_IGNORE) status = scratch_status();
  }
  static void after(CallRecord& call, int result, int count, MPI_Request*, int* index,
                    MPI_Status* status) noexcept {
    if (result != MPI_SUCCESS || index == nullptr || *index == MPI_UNDEFINED || *index < 0 ||
        *index >= count)
      return;
    completion::describe(call.row, static_cast<std::size_t>(*index), status);
  }
};

template <>
struct Decoder<Fn::MPI_Testany> {
  static void before(CallRecord&, int count, MPI_Request* requests, int*, int*,
                     MPI_Status*& status) noexcept {
    completion::snapshot(requests, count);
    if (status == MPI_STATUS_IGNORE) status = scratch_status();
  }
  static void after(CallRecord& call, int result, int count, MPI_Request*, int* index, int* flag,
                    MPI_Status* status) noexcept {
    if (result != MPI_SUCCESS || flag == nullptr || *flag == 0 || index == nullptr ||
        *index == MPI_UNDEFINED || *index < 0 || *index >= count)
      return;
    completion::describe(call.row, static_cast<std::size_t>(*index), status);
  }
};

#define ROCPROF_DECODE_SOME(function)                                                         \
  template <>                                                                                 \
  struct Decoder<Fn::function> {                                                              \
    static void before(CallRecord&, int incount, MPI_Request* requests, int*, int*,           \
                       MPI_Status*& statuses) noexcept {                                      \
      completion::snapshot(requests, incount);                                                \
      if (statuses == MPI_STATUSES_IGNORE && incount > 0) {                                   \
        if (MPI_Status* scratch = scratch_statuses(incount)) statuses = scratch;              \
      }                                                                                       \
    }                                                                                         \
    static void after(CallRecord& call, int result, int, MPI_Request*, int* outcount,         \
                      int* indices, MPI_Status* statuses) noexcept {                          \
      if (result != MPI_SUCCESS || outcount == nullptr || *outcount == MPI_UNDEFINED) return; \
      completion::emit_each(call, indices, *outcount, statuses);                              \
    }                                                                                         \
  };
ROCPROF_DECODE_SOME(MPI_Waitsome)
ROCPROF_DECODE_SOME(MPI_Testsome)
#undef ROCPROF_DECODE_SOME

template <>
struct Decoder<Fn::MPI_Start> {
  static void before(CallRecord&, MPI_Request*) noexcept {}
  static void after(CallRecord& call, int result, MPI_Request* request) noexcept {
    if (result == MPI_SUCCESS && request != nullptr) completion::describe_start(call.row, *request);
  }
};

template <>
struct Decoder<Fn::MPI_Startall> {
  static void before(CallRecord&, int, MPI_Request*) noexcept {}
  static void after(CallRecord& call, int result, int count, MPI_Request* requests) noexcept {
    if (result != MPI_SUCCESS || requests == nullptr) return;
    for (int i = 0; i < count; ++i) {
      rocprof_mpi_mpi_call_t row = call.row;
      completion::describe_start(row, requests[i]);
      call.emit(row);
    }
  }
};

template <>
struct Decoder<Fn::MPI_Request_free> {
  static void before(CallRecord& call, MPI_Request* request) noexcept {
    if (request == nullptr) return;
    call.row.request = reinterpret_cast<std::uintptr_t>(*request);
    take_request(*request);
  }
  static void after(CallRecord&, int, MPI_Request*) noexcept {}
};

}  // namespace rocprof::mpi
