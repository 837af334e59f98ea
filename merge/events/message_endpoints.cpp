#include "merge/events/message_endpoints.hpp"

namespace rocprof::merge {

std::optional<EndpointScanner::Taken> EndpointScanner::place_when_posted(const StreamKey& posted) {
  if (posted.source < 0 || posted.tag < 0) return std::nullopt;  // a wildcard: at completion
  return next_place(receives_, posted);
}

MessageEndpoint EndpointScanner::receive_endpoint(const format::MpiCallRow& row,
                                                  const Request* request) {
  const StreamKey stream{row.communicator, row.peer, rank_, row.tag};
  const bool placed = request != nullptr && request->place && request->posted == stream;
  const Taken taken = placed ? *request->place : next_place(receives_, stream);
  return {MessageEndpoint::Kind::kReceive,
          stream,
          row.end_ns,
          taken.ordinal,
          taken.slot,
          placed ? request->posted_ns : row.begin_ns,
          placed ? request->posted_end_ns : row.end_ns};
}

EndpointScanner::Requests::iterator EndpointScanner::find_request(const format::MpiCallRow& row) {
  const auto found = requests_.find({row.thread_id, row.request});
  if (found != requests_.end()) return found;
  // Completed on another thread than the one that made it: the thread that made it last.
  const auto maker = makers_.find(row.request);
  return maker == makers_.end() ? requests_.end() : requests_.find({maker->second, row.request});
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
    out[count++] = {Kind::kSend, stream,       row.begin_ns, taken.ordinal,
                    taken.slot,  row.begin_ns, row.end_ns};
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
    requests_[{row.thread_id, row.request}] = Request{};
  if ((kind == kImmediateSend || kind == kPersistentSend || kind == kImmediateReceive ||
       kind == kPersistentReceive) &&
      row.request != 0)
    makers_[row.request] = row.thread_id;
  if (kind == kImmediateReceive && row.request != 0)
    requests_[{row.thread_id, row.request}] = {true, place_when_posted(posted), posted,
                                               row.begin_ns, row.end_ns};
  if (kind == kPersistentReceive && row.request != 0)
    requests_[{row.thread_id, row.request}] = {true, std::nullopt, posted, row.begin_ns,
                                               row.end_ns};  // placed at each start
  if (kind == kStart && row.request != 0) {
    const auto found = find_request(row);
    if (found != requests_.end() && !found->second.receive && row.peer >= 0)
      send();  // a persistent send sends each time it is started
    if (found != requests_.end() && found->second.receive) {
      found->second.place = place_when_posted(found->second.posted);
      found->second.posted_ns = row.begin_ns;
      found->second.posted_end_ns = row.end_ns;
    }
  }
  if (kind == kReceive && row.peer >= 0) out[count++] = receive_endpoint(row, nullptr);
  if (kind == kCompletion && row.request != 0) {
    const auto found = find_request(row);
    if (found != requests_.end() && found->second.receive) {
      Request& request = found->second;
      if (request.place) {
        // Posted with its source and tag: only that stream's message can complete it, even
        // where the completion's row lacks the source (a status not recorded).
        out[count++] = {MessageEndpoint::Kind::kReceive,
                        request.posted,
                        row.end_ns,
                        request.place->ordinal,
                        request.place->slot,
                        request.posted_ns,
                        request.posted_end_ns};
      } else if (row.peer >= 0) {
        out[count++] = receive_endpoint(row, &request);
      }
      request.place.reset();  // taken; a persistent one gets another at its next start
    }
  }
  return count;
}

}  // namespace rocprof::merge
