#include "merge/events/message_endpoints.hpp"

namespace rocprof::merge {

std::size_t EndpointScanner::scan(const format::MpiCallRow& row,
                                  std::array<MessageEndpoint, 2>& out) {
  using enum MpiCallKind;
  using Kind = MessageEndpoint::Kind;
  const MpiCallKind kind = functions_.kind(row.function);
  std::size_t count = 0;
  if ((kind == kBlockingSend || kind == kSendrecv || kind == kImmediateSend) && row.peer >= 0) {
    out[count++] = {Kind::kSend, {row.communicator, rank_, row.peer, row.tag}, row.begin_ns};
    if (kind == kSendrecv)
      out[count++] = {Kind::kInvisibleReceive, {row.communicator, -1, rank_, -1}, row.end_ns};
  }
  if ((kind == kImmediateSend || kind == kPersistentSend) && row.request != 0)
    receive_request_[row.request] = false;
  if ((kind == kImmediateReceive || kind == kPersistentReceive) && row.request != 0)
    receive_request_[row.request] = true;
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
