#include "merge/events/message_endpoints.hpp"

namespace rocprof::merge {

std::size_t EndpointScanner::scan(const format::MpiCallRow& row,
                                  std::array<MessageEndpoint, 2>& out) {
  using enum MpiCallKind;
  using Kind = MessageEndpoint::Kind;
  const MpiCallKind kind = functions_.kind(row.function);
  std::size_t count = 0;
  if (kind == kSendrecv && row.request == format::kCallPartRequest) {
    // The receive half of MPI_Sendrecv (format 1.1), recorded before the call's own row: an
    // ordinary receive, given out after the call's send (the send was under way before the
    // receive completed; matching needs each rank's endpoints in an order causality allows).
    sendrecv_halves_[row.thread_id] =
        row.peer >= 0
            ? std::optional<MessageEndpoint>(MessageEndpoint{
                  Kind::kReceive, {row.communicator, row.peer, rank_, row.tag}, row.end_ns})
            : std::nullopt;
    return 0;
  }
  if ((kind == kBlockingSend || kind == kSendrecv || kind == kImmediateSend) && row.peer >= 0)
    out[count++] = {Kind::kSend, {row.communicator, rank_, row.peer, row.tag}, row.begin_ns};
  if (kind == kSendrecv) {
    const auto half = sendrecv_halves_.find(row.thread_id);
    if (half == sendrecv_halves_.end()) {
      // A file from before 1.1 has no receive half: something came from somewhere.
      out[count++] = {Kind::kInvisibleReceive, {row.communicator, -1, rank_, -1}, row.end_ns};
    } else {
      if (half->second) out[count++] = *half->second;
      sendrecv_halves_.erase(half);
    }
    return count;
  }
  if ((kind == kImmediateSend || kind == kPersistentSend) && row.request != 0)
    receive_request_[row.request] = false;
  if ((kind == kImmediateReceive || kind == kPersistentReceive) && row.request != 0)
    receive_request_[row.request] = true;
  if (kind == kStart && row.request != 0 && row.peer >= 0) {
    // A persistent send sends each time it is started.
    const auto found = receive_request_.find(row.request);
    if (found != receive_request_.end() && !found->second)
      out[count++] = {Kind::kSend, {row.communicator, rank_, row.peer, row.tag}, row.begin_ns};
  }
  bool received = kind == kReceive;
  if (kind == kCompletion && row.request != 0) {
    const auto found = receive_request_.find(row.request);
    received = found != receive_request_.end() && found->second;
  }
  if (received && row.peer >= 0)
    out[count++] = {Kind::kReceive, {row.communicator, row.peer, rank_, row.tag}, row.end_ns};
  return count;
}

}  // namespace rocprof::merge
