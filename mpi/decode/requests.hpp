// What the decoders remember about each pending request, so that the call completing it
// (MPI_Wait*, MPI_Test*) or starting it again (MPI_Start*) can say what it was.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <optional>

namespace rocprof::mpi {

struct RequestInfo {
  enum class Kind : std::uint8_t { kSend, kReceive, kCollective, kOther } kind = Kind::kOther;
  bool persistent = false;
  MPI_Comm comm = MPI_COMM_NULL;  // to translate a receive's source
  std::uint64_t communicator = 0;
  std::int32_t peer = -1;  // world rank (send destination, receive source unless ANY)
  std::int32_t tag = -1;
  std::uint64_t bytes = 0;  // bytes sent, or the receive buffer's size
};

// Any thread; striped locks, held only for the map operation.
void remember_request(MPI_Request request, const RequestInfo& info) noexcept;
std::optional<RequestInfo> find_request(MPI_Request request) noexcept;
// Removes and returns it (a completed non-persistent request, or MPI_Request_free).
std::optional<RequestInfo> take_request(MPI_Request request) noexcept;

}  // namespace rocprof::mpi
