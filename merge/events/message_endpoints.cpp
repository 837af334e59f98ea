#include "merge/events/message_endpoints.hpp"

namespace rocprof::merge {

std::optional<EndpointScanner::Taken> EndpointScanner::place_when_posted(const StreamKey& posted) {
  if (posted.source < 0 || posted.tag < 0) return std::nullopt;  // a wildcard: at completion
  return next_place(receives_, posted);
}

MessageEndpoint EndpointScanner::receive_endpoint(const format::MpiCallRow& row,
                                                  const Request* request) {
  const StreamKey stream{row.communicator, row.peer, rank_, row.tag};
  const Taken taken = request != nullptr && request->place && request->posted == stream
                          ? *request->place
                          : next_place(receives_, stream);
  return {MessageEndpoint::Kind::kReceive, stream, row.end_ns, taken.ordinal, taken.slot};
}

std::size_t EndpointScanner::scan(const format::MpiCallRow& row,
                                  std::array<MessageEndpoint, 2>& out) {
  using enum MpiCallKind;
  using Kind = MessageEndpoint::Kind;
  const MpiCallKind kind = functions_.kind(row.function);
  std::size_t count = 0;
  auto send = [&] {
    const StreamKey stream{row.communicator, rank_, row.peer, row.tag};
    const Taken taken = next_place(sends_, stream);
    out[count++] = {Kind::kSend, stream, row.begin_ns, taken.ordinal, taken.slot};
  };
  if (kind == kSendrecv && row.request == format::kCallPartRequest) {
    // The receive half of MPI_Sendrecv (format 1.1), recorded before the call's own row: an
    // ordinary receive, given out after the call's send (the send was under way before the
    // receive completed; matching needs each rank's endpoints in an order causality allows).
    sendrecv_halves_[row.thread_id] =
        row.peer >= 0 ? std::optional<MessageEndpoint>(receive_endpoint(row, nullptr))
                      : std::nullopt;
    return 0;
  }
  if ((kind == kBlockingSend || kind == kSendrecv || kind == kImmediateSend) && row.peer >= 0)
    send();
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
  const StreamKey posted{row.communicator, row.peer, rank_, row.tag};
  if ((kind == kImmediateSend || kind == kPersistentSend) && row.request != 0)
    requests_[row.request] = Request{};
  if (kind == kImmediateReceive && row.request != 0)
    requests_[row.request] = {true, place_when_posted(posted), posted};
  if (kind == kPersistentReceive && row.request != 0)
    requests_[row.request] = {true, std::nullopt, posted};  // placed at each start
  if (kind == kStart && row.request != 0) {
    const auto found = requests_.find(row.request);
    if (found != requests_.end() && !found->second.receive && row.peer >= 0)
      send();  // a persistent send sends each time it is started
    if (found != requests_.end() && found->second.receive)
      found->second.place = place_when_posted(found->second.posted);
  }
  if (kind == kReceive && row.peer >= 0) out[count++] = receive_endpoint(row, nullptr);
  if (kind == kCompletion && row.request != 0 && row.peer >= 0) {
    const auto found = requests_.find(row.request);
    if (found != requests_.end() && found->second.receive) {
      out[count++] = receive_endpoint(row, &found->second);
      found->second.place.reset();  // taken; a persistent one gets another at its next start
    }
  }
  return count;
}

}  // namespace rocprof::merge
