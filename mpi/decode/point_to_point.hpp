// Decoders of point-to-point calls: peer as a world rank, tag, bytes, communicator, and the
// request of non-blocking and persistent calls (remembered for their completion).
#pragma once

#include "mpi/decode/communicators.hpp"
#include "mpi/decode/decoder_base.hpp"
#include "mpi/decode/requests.hpp"
#include "mpi/decode/support.hpp"

namespace rocprof::mpi {
namespace p2p {

inline void send(CallRecord& call, int count, MPI_Datatype type, int dest, int tag,
                 MPI_Comm comm) noexcept {
  call.row.peer = world_rank(comm, dest);
  call.row.tag = tag;
  // Nothing travels to MPI_PROC_NULL.
  call.row.bytes_sent = dest == MPI_PROC_NULL ? 0 : message_bytes(count, type);
  call.row.communicator = communicator_id(comm);
}

inline void receive_posted(CallRecord& call, int count, MPI_Datatype type, int source, int tag,
                           MPI_Comm comm) noexcept {
  call.row.peer = world_rank(comm, source);  // -1 for MPI_ANY_SOURCE until it completes
  call.row.tag = tag;
  call.row.communicator = communicator_id(comm);
  (void)count;
  (void)type;
}

// A receive that completed with `status`: the actual source, tag and size.
inline void received(CallRecord& call, MPI_Comm comm, const MPI_Status* status) noexcept {
  if (status == nullptr) return;
  call.row.peer = world_rank(comm, status->MPI_SOURCE);
  call.row.tag = status->MPI_SOURCE == MPI_PROC_NULL ? -1 : status->MPI_TAG;
  call.row.bytes_received = received_bytes(*status);
}

// The receive of MPI_Sendrecv(_replace): a row of its own before the call's row (which keeps
// the send's peer and tag), with the actual source, tag and size, and `request` set to
// ROCPROF_MPI_CALL_PART so that readers take it for a part of the call, not a call.
inline void received_half(CallRecord& call, MPI_Comm comm, const MPI_Status* status) noexcept {
  if (status == nullptr) return;
  call.row.bytes_received = received_bytes(*status);
  rocprof_mpi_mpi_call_t part = call.row;
  part.peer = world_rank(comm, status->MPI_SOURCE);
  part.tag = status->MPI_SOURCE == MPI_PROC_NULL ? -1 : status->MPI_TAG;
  part.bytes_sent = 0;
  part.request = ROCPROF_MPI_CALL_PART;
  call.emit(part);
}

inline void started(CallRecord& call, int result, MPI_Request* request, MPI_Comm comm,
                    RequestInfo::Kind kind, bool persistent) noexcept {
  if (result != MPI_SUCCESS || request == nullptr) return;
  call.row.request = reinterpret_cast<std::uintptr_t>(*request);
  RequestInfo info;
  info.kind = kind;
  info.persistent = persistent;
  info.comm = comm;
  info.communicator = call.row.communicator;
  info.peer = call.row.peer;
  info.tag = call.row.tag;
  info.bytes = call.row.bytes_sent;
  remember_request(*request, info);
}

}  // namespace p2p

#define ROCPROF_DECODE_BLOCKING_SEND(function)                                                 \
  template <>                                                                                  \
  struct Decoder<Fn::function> {                                                               \
    static void before(CallRecord& call, const void*, int count, MPI_Datatype type, int dest,  \
                       int tag, MPI_Comm comm) noexcept {                                      \
      p2p::send(call, count, type, dest, tag, comm);                                           \
    }                                                                                          \
    static void after(CallRecord&, int, const void*, int, MPI_Datatype, int, int, MPI_Comm) {} \
  };
ROCPROF_DECODE_BLOCKING_SEND(MPI_Send)
ROCPROF_DECODE_BLOCKING_SEND(MPI_Bsend)
ROCPROF_DECODE_BLOCKING_SEND(MPI_Ssend)
ROCPROF_DECODE_BLOCKING_SEND(MPI_Rsend)
#undef ROCPROF_DECODE_BLOCKING_SEND

// Non-blocking sends and persistent send requests.
#define ROCPROF_DECODE_STARTED_SEND(function, persistent)                                     \
  template <>                                                                                 \
  struct Decoder<Fn::function> {                                                              \
    static void before(CallRecord& call, const void*, int count, MPI_Datatype type, int dest, \
                       int tag, MPI_Comm comm, MPI_Request*) noexcept {                       \
      p2p::send(call, count, type, dest, tag, comm);                                          \
    }                                                                                         \
    static void after(CallRecord& call, int result, const void*, int, MPI_Datatype, int, int, \
                      MPI_Comm comm, MPI_Request* request) noexcept {                         \
      p2p::started(call, result, request, comm, RequestInfo::Kind::kSend, persistent);        \
    }                                                                                         \
  };
ROCPROF_DECODE_STARTED_SEND(MPI_Isend, false)
ROCPROF_DECODE_STARTED_SEND(MPI_Ibsend, false)
ROCPROF_DECODE_STARTED_SEND(MPI_Issend, false)
ROCPROF_DECODE_STARTED_SEND(MPI_Irsend, false)
ROCPROF_DECODE_STARTED_SEND(MPI_Send_init, true)
ROCPROF_DECODE_STARTED_SEND(MPI_Bsend_init, true)
ROCPROF_DECODE_STARTED_SEND(MPI_Ssend_init, true)
ROCPROF_DECODE_STARTED_SEND(MPI_Rsend_init, true)
#undef ROCPROF_DECODE_STARTED_SEND

#define ROCPROF_DECODE_STARTED_RECEIVE(function, persistent)                                       \
  template <>                                                                                      \
  struct Decoder<Fn::function> {                                                                   \
    static void before(CallRecord& call, void*, int count, MPI_Datatype type, int source, int tag, \
                       MPI_Comm comm, MPI_Request*) noexcept {                                     \
      p2p::receive_posted(call, count, type, source, tag, comm);                                   \
    }                                                                                              \
    static void after(CallRecord& call, int result, void*, int, MPI_Datatype, int, int,            \
                      MPI_Comm comm, MPI_Request* request) noexcept {                              \
      p2p::started(call, result, request, comm, RequestInfo::Kind::kReceive, persistent);          \
    }                                                                                              \
  };
ROCPROF_DECODE_STARTED_RECEIVE(MPI_Irecv, false)
ROCPROF_DECODE_STARTED_RECEIVE(MPI_Recv_init, true)
#undef ROCPROF_DECODE_STARTED_RECEIVE

template <>
struct Decoder<Fn::MPI_Recv> {
  static void before(CallRecord& call, void*, int count, MPI_Datatype type, int source, int tag,
                     MPI_Comm comm, MPI_Status*& status) noexcept {
    p2p::receive_posted(call, count, type, source, tag, comm);
    if (status == MPI_STATUS_IGNORE) status = scratch_status();
  }
  static void after(CallRecord& call, int result, void*, int, MPI_Datatype, int, int, MPI_Comm comm,
                    MPI_Status* status) noexcept {
    if (result == MPI_SUCCESS) p2p::received(call, comm, status);
  }
};

template <>
struct Decoder<Fn::MPI_Sendrecv> {
  static void before(CallRecord& call, const void*, int sendcount, MPI_Datatype sendtype, int dest,
                     int sendtag, void*, int, MPI_Datatype, int, int, MPI_Comm comm,
                     MPI_Status*& status) noexcept {
    p2p::send(call, sendcount, sendtype, dest, sendtag, comm);
    if (status == MPI_STATUS_IGNORE) status = scratch_status();
  }
  static void after(CallRecord& call, int result, const void*, int, MPI_Datatype, int, int, void*,
                    int, MPI_Datatype, int, int, MPI_Comm comm, MPI_Status* status) noexcept {
    if (result == MPI_SUCCESS) p2p::received_half(call, comm, status);
  }
};

template <>
struct Decoder<Fn::MPI_Sendrecv_replace> {
  static void before(CallRecord& call, void*, int count, MPI_Datatype type, int dest, int sendtag,
                     int, int, MPI_Comm comm, MPI_Status*& status) noexcept {
    p2p::send(call, count, type, dest, sendtag, comm);
    if (status == MPI_STATUS_IGNORE) status = scratch_status();
  }
  static void after(CallRecord& call, int result, void*, int, MPI_Datatype, int, int, int, int,
                    MPI_Comm comm, MPI_Status* status) noexcept {
    if (result == MPI_SUCCESS) p2p::received_half(call, comm, status);
  }
};

template <>
struct Decoder<Fn::MPI_Mrecv> {
  static void before(CallRecord&, void*, int, MPI_Datatype, MPI_Message*,
                     MPI_Status*& status) noexcept {
    if (status == MPI_STATUS_IGNORE) status = scratch_status();
  }
  static void after(CallRecord& call, int result, void*, int, MPI_Datatype, MPI_Message*,
                    MPI_Status* status) noexcept {
    // The matched message's communicator is not visible here: the source is recorded as the
    // world rank only when it is in MPI_COMM_WORLD's numbering.
    if (result != MPI_SUCCESS || status == nullptr) return;
    call.row.tag = status->MPI_TAG;
    call.row.bytes_received = received_bytes(*status);
  }
};

}  // namespace rocprof::mpi
