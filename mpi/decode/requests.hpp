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
  // Set by remember_request: tells this request from a later one that MPI gave the same
  // handle (a handle is free for reuse the moment the call completing it returns).
  std::uint64_t sequence = 0;
};

// Any thread; striped locks, held only for the map operation. A handle may name several live
// requests at once (see find_request), so completions go by what the request was before the
// call completing it (completion.hpp) and forget it by its sequence.
void remember_request(MPI_Request request, const RequestInfo& info) noexcept;
// The request a handle names: the calling thread's own first (the `skip`-th oldest of its
// requests with that handle), else the latest any thread started with it.
std::optional<RequestInfo> find_request(MPI_Request request, std::size_t skip = 0) noexcept;
// Removes and returns it (a completed non-persistent request, or MPI_Request_free).
std::optional<RequestInfo> take_request(MPI_Request request) noexcept;
// Removes it only if it is still the request remembered with `sequence`: under
// MPI_THREAD_MULTIPLE another thread may have started a request with the same handle since.
void forget_request(MPI_Request request, std::uint64_t sequence) noexcept;

}  // namespace rocprof::mpi
