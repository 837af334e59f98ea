// Decoders of the calls that create and free communicators: the new communicator gets its
// job-wide id and a row in the communicators table; the call's row names the communicator it
// was made from.
#pragma once

#include "mpi/decode/communicators.hpp"
#include "mpi/decode/decoder_base.hpp"

namespace rocprof::mpi {

// Creators whose last parameter is the new communicator and first the parent; PARAMS are
// the ones between.
#define ROCPROF_DECODE_CREATOR(function, ...)                                                  \
  template <>                                                                                  \
  struct Decoder<Fn::function> {                                                               \
    template <typename... Middle>                                                              \
    static void before(CallRecord& call, MPI_Comm parent, Middle&&...) noexcept {              \
      call.row.communicator = communicator_id(parent);                                         \
    }                                                                                          \
    template <typename... Rest>                                                                \
    static void after(CallRecord&, int result, MPI_Comm parent, Rest&&... rest) noexcept {     \
      if (result == MPI_SUCCESS) communicator_created(parent, *last_comm(rest...), #function); \
    }                                                                                          \
  };

inline MPI_Comm* pick_comm(MPI_Comm* comm) noexcept { return comm; }
template <typename T>
MPI_Comm* pick_comm(T&&) noexcept {
  return nullptr;
}
template <typename... Rest>
MPI_Comm* last_comm(Rest&&... rest) noexcept {
  static MPI_Comm none = MPI_COMM_NULL;
  MPI_Comm* last = &none;
  ((last = pick_comm(rest) != nullptr ? pick_comm(rest) : last), ...);
  return last;
}

ROCPROF_DECODE_CREATOR(MPI_Comm_dup)
ROCPROF_DECODE_CREATOR(MPI_Comm_dup_with_info)
ROCPROF_DECODE_CREATOR(MPI_Comm_split)
ROCPROF_DECODE_CREATOR(MPI_Comm_split_type)
ROCPROF_DECODE_CREATOR(MPI_Comm_create)
ROCPROF_DECODE_CREATOR(MPI_Comm_create_group)
ROCPROF_DECODE_CREATOR(MPI_Intercomm_create)
ROCPROF_DECODE_CREATOR(MPI_Intercomm_merge)
ROCPROF_DECODE_CREATOR(MPI_Cart_create)
ROCPROF_DECODE_CREATOR(MPI_Cart_sub)
ROCPROF_DECODE_CREATOR(MPI_Graph_create)
ROCPROF_DECODE_CREATOR(MPI_Dist_graph_create)
ROCPROF_DECODE_CREATOR(MPI_Dist_graph_create_adjacent)
#undef ROCPROF_DECODE_CREATOR

#define ROCPROF_DECODE_FREE(function)                               \
  template <>                                                       \
  struct Decoder<Fn::function> {                                    \
    static void before(CallRecord& call, MPI_Comm* comm) noexcept { \
      if (comm == nullptr) return;                                  \
      call.row.communicator = communicator_id(*comm);               \
      communicator_freed(*comm);                                    \
    }                                                               \
    static void after(CallRecord&, int, MPI_Comm*) noexcept {}      \
  };
ROCPROF_DECODE_FREE(MPI_Comm_free)
ROCPROF_DECODE_FREE(MPI_Comm_disconnect)
#undef ROCPROF_DECODE_FREE

}  // namespace rocprof::mpi
