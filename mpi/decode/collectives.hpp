// Decoders of collectives: communicator, root as a world rank (peer), and the bytes this
// process sends and receives (MPI_IN_PLACE counts the process's own block as sent). The
// non-blocking forms record their request, which their completion reports.
#pragma once

#include "mpi/clock/periodic_sync.hpp"
#include "mpi/decode/communicators.hpp"
#include "mpi/decode/decoder_base.hpp"
#include "mpi/decode/requests.hpp"
#include "mpi/decode/support.hpp"

namespace rocprof::mpi {
namespace collective {

inline int rank_in(MPI_Comm comm) noexcept {
  int rank = -1;
  PMPI_Comm_rank(comm, &rank);
  return rank;
}

inline bool is_inter(MPI_Comm comm) noexcept {
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  return inter != 0;
}

// Whether this process is the root of a rooted collective.
inline bool is_root(MPI_Comm comm, int root) noexcept {
  if (root == MPI_ROOT) return true;
  if (root < 0) return false;  // MPI_PROC_NULL: the other processes of a root's group
  return !is_inter(comm) && rank_in(comm) == root;
}

inline void common(CallRecord& call, MPI_Comm comm, int root) noexcept {
  call.row.communicator = communicator_id(comm);
  call.row.peer = root >= 0 ? world_rank(comm, root) : -1;
}

inline void started(CallRecord& call, int result, MPI_Request* request, MPI_Comm comm) noexcept {
  if (result != MPI_SUCCESS || request == nullptr) return;
  call.row.request = reinterpret_cast<std::uintptr_t>(*request);
  RequestInfo info;
  info.kind = RequestInfo::Kind::kCollective;
  info.comm = comm;
  info.communicator = call.row.communicator;
  info.peer = call.row.peer;
  remember_request(*request, info);
}

inline void bcast(CallRecord& call, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  common(call, comm, root);
  const std::uint64_t bytes = message_bytes(count, type);
  if (is_root(comm, root))
    call.row.bytes_sent = bytes;
  else if (root != MPI_PROC_NULL)
    call.row.bytes_received = bytes;
}

inline void reduce(CallRecord& call, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  common(call, comm, root);
  const std::uint64_t bytes = message_bytes(count, type);
  if (root != MPI_ROOT) call.row.bytes_sent = bytes;
  if (is_root(comm, root)) call.row.bytes_received = bytes;
}

inline void all_to_all_same(CallRecord& call, MPI_Comm comm, std::uint64_t sent,
                            std::uint64_t received) {
  common(call, comm, -1);
  call.row.bytes_sent = sent;
  call.row.bytes_received = received;
}

inline void gather(CallRecord& call, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                   std::uint64_t root_receives, std::uint64_t own_block, int root, MPI_Comm comm) {
  common(call, comm, root);
  const bool root_here = is_root(comm, root);
  if (root != MPI_ROOT)
    call.row.bytes_sent = sendbuf == MPI_IN_PLACE ? own_block : message_bytes(sendcount, sendtype);
  if (root_here) call.row.bytes_received = root_receives;
}

inline void scatter(CallRecord& call, std::uint64_t root_sends, void* recvbuf, int recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm) {
  common(call, comm, root);
  if (is_root(comm, root)) call.row.bytes_sent = root_sends;
  if (root != MPI_ROOT && recvbuf != MPI_IN_PLACE)
    call.row.bytes_received = message_bytes(recvcount, recvtype);
}

inline std::uint64_t sum_bytes(const int* counts, const MPI_Datatype* types, int n) noexcept {
  std::uint64_t total = 0;
  if (counts == nullptr || types == nullptr) return 0;
  for (int i = 0; i < n; ++i) total += message_bytes(counts[i], types[i]);
  return total;
}

}  // namespace collective

// (Helpers used by the macro below.)
// Defines Decoder<F> for a blocking collective and Decoder<I> for its non-blocking form,
// which has the same parameters plus the request. BODY decodes into `call` from the
// parameters named in PARAMS.
#define ROCPROF_DECODE_COLLECTIVE(blocking, nonblocking, PARAMS, BODY)                \
  template <>                                                                         \
  struct Decoder<Fn::blocking> {                                                      \
    static void before(CallRecord& call, PARAMS) noexcept { BODY; }                   \
    template <typename... Rest>                                                       \
    static void after(CallRecord&, int, Rest&&...) noexcept {}                        \
  };                                                                                  \
  template <>                                                                         \
  struct Decoder<Fn::nonblocking> {                                                   \
    static void before(CallRecord& call, PARAMS, MPI_Request*) noexcept { BODY; }     \
    template <typename... Rest>                                                       \
    static void after(CallRecord& call, int result, Rest&&... rest) noexcept {        \
      /* The communicator id is already in the row; completion needs nothing more. */ \
      collective::started(call, result, last_of(rest...), MPI_COMM_NULL);             \
    }                                                                                 \
  };

// The request pointer is the last argument of every non-blocking collective.
inline MPI_Request* pick_request(MPI_Request* request) noexcept { return request; }
template <typename T>
MPI_Request* pick_request(T&&) noexcept {
  return nullptr;
}
template <typename... Rest>
MPI_Request* last_of(Rest&&... rest) noexcept {
  MPI_Request* last = nullptr;
  ((last = pick_request(rest)), ...);
  return last;
}

#define ROCPROF_P(...) __VA_ARGS__

// A world barrier is where periodic clock synchronisation may run (clock/periodic_sync.hpp).
template <>
struct Decoder<Fn::MPI_Barrier> {
  static void before(CallRecord& call, MPI_Comm comm) noexcept {
    collective::common(call, comm, -1);
  }
  static void after(CallRecord&, int result, MPI_Comm comm) noexcept {
    if (result == MPI_SUCCESS && comm == MPI_COMM_WORLD) periodic_sync_at_world_barrier();
  }
};
template <>
struct Decoder<Fn::MPI_Ibarrier> {
  static void before(CallRecord& call, MPI_Comm comm, MPI_Request*) noexcept {
    collective::common(call, comm, -1);
  }
  static void after(CallRecord& call, int result, MPI_Comm, MPI_Request* request) noexcept {
    collective::started(call, result, request, MPI_COMM_NULL);
  }
};
ROCPROF_DECODE_COLLECTIVE(MPI_Bcast, MPI_Ibcast,
                          ROCPROF_P(void*, int count, MPI_Datatype type, int root, MPI_Comm comm),
                          collective::bcast(call, count, type, root, comm))
ROCPROF_DECODE_COLLECTIVE(MPI_Reduce, MPI_Ireduce,
                          ROCPROF_P(const void*, void*, int count, MPI_Datatype type, MPI_Op,
                                    int root, MPI_Comm comm),
                          collective::reduce(call, count, type, root, comm))
ROCPROF_DECODE_COLLECTIVE(MPI_Allreduce, MPI_Iallreduce,
                          ROCPROF_P(const void*, void*, int count, MPI_Datatype type, MPI_Op,
                                    MPI_Comm comm),
                          collective::all_to_all_same(call, comm, message_bytes(count, type),
                                                      message_bytes(count, type)))
ROCPROF_DECODE_COLLECTIVE(MPI_Scan, MPI_Iscan,
                          ROCPROF_P(const void*, void*, int count, MPI_Datatype type, MPI_Op,
                                    MPI_Comm comm),
                          collective::all_to_all_same(call, comm, message_bytes(count, type),
                                                      message_bytes(count, type)))
ROCPROF_DECODE_COLLECTIVE(MPI_Exscan, MPI_Iexscan,
                          ROCPROF_P(const void*, void*, int count, MPI_Datatype type, MPI_Op,
                                    MPI_Comm comm),
                          collective::all_to_all_same(call, comm, message_bytes(count, type),
                                                      message_bytes(count, type)))
ROCPROF_DECODE_COLLECTIVE(
    MPI_Reduce_scatter_block, MPI_Ireduce_scatter_block,
    ROCPROF_P(const void*, void*, int recvcount, MPI_Datatype type, MPI_Op, MPI_Comm comm),
    collective::all_to_all_same(call, comm,
                                message_bytes(recvcount, type) *
                                    static_cast<std::uint64_t>(exchange_size(comm)),
                                message_bytes(recvcount, type)))
ROCPROF_DECODE_COLLECTIVE(
    MPI_Reduce_scatter, MPI_Ireduce_scatter,
    ROCPROF_P(const void*, void*, const int* recvcounts, MPI_Datatype type, MPI_Op, MPI_Comm comm),
    const int rank = collective::rank_in(comm);
    collective::all_to_all_same(call, comm, message_bytes(recvcounts, exchange_size(comm), type),
                                rank >= 0 && recvcounts != nullptr
                                    ? message_bytes(recvcounts[rank], type)
                                    : 0))
ROCPROF_DECODE_COLLECTIVE(MPI_Gather, MPI_Igather,
                          ROCPROF_P(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                    void*, int recvcount, MPI_Datatype recvtype, int root,
                                    MPI_Comm comm),
                          const std::uint64_t block = message_bytes(recvcount, recvtype);
                          collective::gather(call, sendbuf, sendcount, sendtype,
                                             block* static_cast<std::uint64_t>(exchange_size(comm)),
                                             block, root, comm))
ROCPROF_DECODE_COLLECTIVE(
    MPI_Gatherv, MPI_Igatherv,
    ROCPROF_P(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void*,
              const int* recvcounts, const int*, MPI_Datatype recvtype, int root, MPI_Comm comm),
    const bool root_here = collective::is_root(comm, root);
    const int rank = collective::rank_in(comm);
    collective::gather(call, sendbuf, sendcount, sendtype,
                       root_here ? message_bytes(recvcounts, exchange_size(comm), recvtype) : 0,
                       root_here&& rank >= 0 && recvcounts != nullptr
                           ? message_bytes(recvcounts[rank], recvtype)
                           : 0,
                       root, comm))
ROCPROF_DECODE_COLLECTIVE(MPI_Scatter, MPI_Iscatter,
                          ROCPROF_P(const void*, int sendcount, MPI_Datatype sendtype,
                                    void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                                    MPI_Comm comm),
                          collective::scatter(call,
                                              message_bytes(sendcount, sendtype) *
                                                  static_cast<std::uint64_t>(exchange_size(comm)),
                                              recvbuf, recvcount, recvtype, root, comm))
ROCPROF_DECODE_COLLECTIVE(
    MPI_Scatterv, MPI_Iscatterv,
    ROCPROF_P(const void*, const int* sendcounts, const int*, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm),
    collective::scatter(call,
                        collective::is_root(comm, root)
                            ? message_bytes(sendcounts, exchange_size(comm), sendtype)
                            : 0,
                        recvbuf, recvcount, recvtype, root, comm))
ROCPROF_DECODE_COLLECTIVE(MPI_Allgather, MPI_Iallgather,
                          ROCPROF_P(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                    void*, int recvcount, MPI_Datatype recvtype, MPI_Comm comm),
                          const std::uint64_t block = message_bytes(recvcount, recvtype);
                          collective::all_to_all_same(
                              call, comm,
                              sendbuf == MPI_IN_PLACE ? block : message_bytes(sendcount, sendtype),
                              block* static_cast<std::uint64_t>(exchange_size(comm))))
ROCPROF_DECODE_COLLECTIVE(
    MPI_Allgatherv, MPI_Iallgatherv,
    ROCPROF_P(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void*,
              const int* recvcounts, const int*, MPI_Datatype recvtype, MPI_Comm comm),
    const int rank = collective::rank_in(comm);
    collective::all_to_all_same(
        call, comm,
        sendbuf == MPI_IN_PLACE
            ? (rank >= 0 && recvcounts != nullptr ? message_bytes(recvcounts[rank], recvtype) : 0)
            : message_bytes(sendcount, sendtype),
        message_bytes(recvcounts, exchange_size(comm), recvtype)))
ROCPROF_DECODE_COLLECTIVE(MPI_Alltoall, MPI_Ialltoall,
                          ROCPROF_P(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                    void*, int recvcount, MPI_Datatype recvtype, MPI_Comm comm),
                          const auto peers = static_cast<std::uint64_t>(exchange_size(comm));
                          const std::uint64_t received = message_bytes(recvcount, recvtype) * peers;
                          collective::all_to_all_same(call, comm,
                                                      sendbuf == MPI_IN_PLACE
                                                          ? received
                                                          : message_bytes(sendcount, sendtype) *
                                                                peers,
                                                      received))
ROCPROF_DECODE_COLLECTIVE(
    MPI_Alltoallv, MPI_Ialltoallv,
    ROCPROF_P(const void* sendbuf, const int* sendcounts, const int*, MPI_Datatype sendtype, void*,
              const int* recvcounts, const int*, MPI_Datatype recvtype, MPI_Comm comm),
    const int peers = exchange_size(comm);
    const std::uint64_t received = message_bytes(recvcounts, peers, recvtype);
    collective::all_to_all_same(
        call, comm, sendbuf == MPI_IN_PLACE ? received : message_bytes(sendcounts, peers, sendtype),
        received))
ROCPROF_DECODE_COLLECTIVE(
    MPI_Alltoallw, MPI_Ialltoallw,
    ROCPROF_P(const void* sendbuf, const int* sendcounts, const int*, const MPI_Datatype* sendtypes,
              void*, const int* recvcounts, const int*, const MPI_Datatype* recvtypes,
              MPI_Comm comm),
    const int peers = exchange_size(comm);
    const std::uint64_t received = collective::sum_bytes(recvcounts, recvtypes, peers);
    collective::all_to_all_same(call, comm,
                                sendbuf == MPI_IN_PLACE
                                    ? received
                                    : collective::sum_bytes(sendcounts, sendtypes, peers),
                                received))

#undef ROCPROF_P
#undef ROCPROF_DECODE_COLLECTIVE

}  // namespace rocprof::mpi
