#include "mpi/decode/completion.hpp"

#include <unordered_map>

namespace rocprof::mpi::completion {

namespace {

// What the requests were before the call that completes them: once it returns, MPI may give
// their handles to requests other threads start. Initial-exec, as the library's other
// thread-locals (call_scope.cpp): every MPI_Test* reads them, and the general model calls
// __tls_get_addr at each read.
__attribute__((tls_model("initial-exec"))) thread_local std::vector<MPI_Request> tl_handles;
__attribute__((tls_model("initial-exec"))) thread_local std::vector<std::optional<RequestInfo>>
    tl_infos;
__attribute__((tls_model("initial-exec"))) thread_local std::unordered_map<MPI_Request, std::size_t>
    tl_seen;

// Up to this many requests, a handle's earlier copies are counted by looking back over the
// array: polling calls (MPI_Test*, millions a second) pass few, and clearing and filling a
// map for each of them cost more than the call.
constexpr std::size_t kLookBack = 32;

std::size_t earlier_copies(const std::vector<MPI_Request>& handles, std::size_t index) noexcept {
  std::size_t copies = 0;
  for (std::size_t i = 0; i < index; ++i) copies += handles[i] == handles[index] ? 1 : 0;
  return copies;
}

}  // namespace

std::vector<MPI_Request>& snapshot(const MPI_Request* requests, int count) noexcept {
  if (count >= 0) {
    try {
      tl_handles.assign(requests, requests == nullptr ? requests : requests + count);
      tl_infos.resize(tl_handles.size());
      // A handle given twice names the thread's next request of that handle the second time.
      const bool look_back = tl_handles.size() <= kLookBack;
      if (!look_back) tl_seen.clear();
      for (std::size_t i = 0; i < tl_handles.size(); ++i)
        tl_infos[i] = find_request(
            tl_handles[i], look_back ? earlier_copies(tl_handles, i) : tl_seen[tl_handles[i]]++);
    } catch (...) {
      tl_handles.clear();
      tl_infos.clear();
    }
  }
  return tl_handles;
}

void describe(rocprof_mpi_mpi_call_t& row, std::size_t index, const MPI_Status* status) noexcept {
  if (index >= tl_handles.size() || tl_handles[index] == MPI_REQUEST_NULL) return;
  MPI_Request request = tl_handles[index];
  row.request = reinterpret_cast<std::uintptr_t>(request);
  const std::optional<RequestInfo>& found = tl_infos[index];
  if (!found) return;  // started before tracing, or by a call this layer does not decode
  if (!found->persistent) forget_request(request, found->sequence);
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

void emit_each(const CallRecord& call, const int* indices, int count,
               const MPI_Status* statuses) noexcept {
  for (int k = 0; k < count; ++k) {
    const int index = indices == nullptr ? k : indices[k];
    if (index < 0 || static_cast<std::size_t>(index) >= tl_handles.size()) continue;
    if (tl_handles[static_cast<std::size_t>(index)] == MPI_REQUEST_NULL) continue;
    rocprof_mpi_mpi_call_t row = call.row;
    row.peer = -1;
    row.tag = -1;
    describe(row, static_cast<std::size_t>(index),
             statuses == MPI_STATUSES_IGNORE ? nullptr : &statuses[k]);
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
