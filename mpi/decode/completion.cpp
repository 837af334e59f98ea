#include "mpi/decode/completion.hpp"

namespace rocprof::mpi::completion {

std::vector<MPI_Request>& snapshot(const MPI_Request* requests, int count) noexcept {
  thread_local std::vector<MPI_Request> handles;
  if (count >= 0) {
    try {
      handles.assign(requests, requests == nullptr ? requests : requests + count);
    } catch (...) {
      handles.clear();
    }
  }
  return handles;
}

void describe(rocprof_mpi_mpi_call_t& row, MPI_Request request, const MPI_Status* status) noexcept {
  if (request == MPI_REQUEST_NULL) return;
  row.request = reinterpret_cast<std::uintptr_t>(request);
  const auto found = find_request(request);
  if (!found) return;  // started before tracing, or by a call this layer does not decode
  if (!found->persistent) take_request(request);
  row.communicator = found->communicator;
  if (found->kind == RequestInfo::Kind::kReceive && status != nullptr) {
    row.peer = world_rank(found->comm, status->MPI_SOURCE);
    row.tag = status->MPI_SOURCE == MPI_PROC_NULL ? -1 : status->MPI_TAG;
    row.bytes_received = received_bytes(*status);
  } else if (found->kind == RequestInfo::Kind::kSend) {
    row.peer = found->peer;
    row.tag = found->tag;
    row.bytes_sent = found->bytes;
  }
}

void emit_each(const CallRecord& call, const std::vector<MPI_Request>& handles, const int* indices,
               int count, const MPI_Status* statuses) noexcept {
  for (int k = 0; k < count; ++k) {
    const int index = indices == nullptr ? k : indices[k];
    if (index < 0 || static_cast<std::size_t>(index) >= handles.size()) continue;
    MPI_Request handle = handles[static_cast<std::size_t>(index)];
    if (handle == MPI_REQUEST_NULL) continue;
    rocprof_mpi_mpi_call_t row = call.row;
    row.peer = -1;
    row.tag = -1;
    describe(row, handle, statuses == MPI_STATUSES_IGNORE ? nullptr : &statuses[k]);
    call.emit(row);
  }
}

void describe_start(rocprof_mpi_mpi_call_t& row, MPI_Request request) noexcept {
  row.request = reinterpret_cast<std::uintptr_t>(request);
  const auto found = find_request(request);
  if (!found) return;
  row.communicator = found->communicator;
  row.peer = found->peer;
  row.tag = found->tag;
  row.bytes_sent = found->kind == RequestInfo::Kind::kSend ? found->bytes : 0;
}

}  // namespace rocprof::mpi::completion
