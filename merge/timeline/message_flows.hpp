#pragma once
// The message flows exporters draw on a rank's MPI calls: one per matched message, from the
// call that sent it to the call that completed its receive. Ids come from the job's stream
// table (stream, place in the stream), so each side numbers its messages without the other.

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "lib/format/records.hpp"
#include "merge/events/aligned_rank.hpp"
#include "merge/events/message_endpoints.hpp"
#include "merge/events/stream_table.hpp"

namespace rocprof::merge {

struct MessageFlow {
  std::uint64_t flow;
  bool starts;  // the send's end of the arrow
  // When the endpoint took its place in its stream (MessageEndpoint::posted_ns): a send's
  // call began, a receive was posted (MPI_Irecv's call, or the MPI_Recv itself).
  std::uint64_t posted_ns;
  std::int32_t receiver;  // world rank the message went to
};

// Walks the MPI-call rows in file order. Per-request rows are not drawn, so their flows wait
// for the next drawn row on the same thread, which is the completion call they belong to.
class MessageFlowCursor {
 public:
  explicit MessageFlowCursor(const AlignedRank& rank)
      : scanner_(rank.reader(), rank.rank()), streams_(rank.streams()) {
    if (streams_ != nullptr && rank.threaded()) renumbered_ = posting_order(rank);
  }

  // Call once per row, in file order. Returns the flows to draw on this row if it is drawn;
  // clear the vector after drawing them.
  std::vector<MessageFlow>& advance(const format::MpiCallRow& row) {
    // Rows come in runs from one thread: its list is found once per run (map nodes stay put).
    if (last_ == nullptr || row.thread_id != last_thread_) {
      last_thread_ = row.thread_id;
      last_ = &pending_[row.thread_id];
    }
    std::vector<MessageFlow>& pending = *last_;
    if (streams_ == nullptr) return pending;
    const std::size_t count = scanner_.scan(row, endpoints_);
    for (std::size_t i = 0; i < count; ++i) {
      const MessageEndpoint& endpoint = endpoints_[i];
      if (endpoint.stream_slot == kNoStreamSlot) continue;  // an invisible receive: no flow
      // The stream's index in the job's table, looked up by key once per rank and stream.
      std::uint32_t& index = scanner_.value(endpoint.stream_slot);
      if (index == EndpointScanner::kUnset)
        index = streams_->find(endpoint.stream).value_or(kNotInTable);
      if (index == kNotInTable) continue;
      std::uint32_t ordinal = endpoint.ordinal;
      if (!renumbered_.empty()) {
        const auto found = renumbered_.find(place_key(endpoint));
        if (found != renumbered_.end()) ordinal = found->second;
      }
      if (endpoint.kind == MessageEndpoint::Kind::kReceive)
        ordinal = streams_->received_message(index, ordinal);
      if (const auto flow = streams_->flow(index, ordinal))
        pending.push_back({*flow, endpoint.kind == MessageEndpoint::Kind::kSend, endpoint.posted_ns,
                           endpoint.stream.destination});
    }
    return pending;
  }

 private:
  static constexpr std::uint32_t kNotInTable = EndpointScanner::kUnset - 1;
  static std::uint64_t place_key(const MessageEndpoint& endpoint) {
    const bool receive = endpoint.kind == MessageEndpoint::Kind::kReceive;
    return std::uint64_t{endpoint.stream_slot} << 33 | std::uint64_t{receive} << 32 |
           endpoint.ordinal;
  }
  // A threaded rank's places in file order -> in posting order, as the message spill numbers
  // them (EndpointSpill::fill): a pass of its own over the rank's MPI calls.
  static absl::flat_hash_map<std::uint64_t, std::uint32_t> posting_order(const AlignedRank& rank);
  absl::flat_hash_map<std::uint64_t, std::uint32_t> renumbered_;
  EndpointScanner scanner_;
  const StreamTable* streams_;  // null before matching: no flows
  std::array<MessageEndpoint, 2> endpoints_{};
  std::map<std::uint32_t, std::vector<MessageFlow>> pending_;  // by thread
  std::uint32_t last_thread_ = 0;
  std::vector<MessageFlow>* last_ = nullptr;  // pending_[last_thread_]
};

}  // namespace rocprof::merge
