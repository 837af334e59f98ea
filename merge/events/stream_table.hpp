#pragma once
// The job's message streams, the same on every merge process: each stream's message count
// and whether its sends and receives can be matched in order (equal counts, and no receive
// of unknown source on its destination and communicator, as MPI_Sendrecv's is recorded).
// Message flows get their ids from it: stream index and the message's place in the stream.

#include <cstdint>
#include <optional>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "merge/events/flow_ids.hpp"
#include "merge/events/message_endpoints.hpp"

namespace rocprof::merge {

struct StreamCount {
  StreamKey key;
  std::uint64_t sends = 0;
  std::uint64_t receives = 0;
};

// A destination and communicator that received a message of unknown source.
struct InvisibleTarget {
  std::uint64_t communicator;
  std::int64_t destination;
  auto operator<=>(const InvisibleTarget&) const = default;  // NOLINT(modernize-use-nullptr)
};

class StreamTable {
 public:
  StreamTable() = default;
  // From every merge process's counts (a stream may appear in several: its sends with one,
  // its receives with another).
  StreamTable(const std::vector<StreamCount>& counts, std::vector<InvisibleTarget> invisible);

  std::optional<std::uint32_t> find(const StreamKey& key) const;
  bool matched(std::uint32_t index) const { return matched_[index] != 0; }
  void unmatch(std::uint32_t index) { matched_[index] = 0; }
  std::size_t size() const noexcept { return streams_.size(); }
  const StreamCount& stream(std::uint32_t index) const { return streams_[index]; }
  std::uint64_t matched_messages() const;
  // Messages of the streams left unmatched, by why: sends and receives differ in number (a
  // rank's file missing or cut short), receives of unknown source reached the destination
  // (MPI_Sendrecv in files before format 1.1), or the streams the matching gave up (their
  // order contradicts itself).
  struct Unmatched {
    std::uint64_t uneven = 0;
    std::uint64_t unknown_source = 0;
    std::uint64_t given_up = 0;
    std::uint64_t total() const noexcept { return uneven + unknown_source + given_up; }
  };
  Unmatched unmatched(const std::vector<std::uint32_t>& given_up) const;

  // The flow an endpoint starts or ends, from its stream's index and its ordinal (which the
  // sender and the receiver give the same message); nullopt if its stream is not matched.
  std::optional<std::uint64_t> flow(const MessageEndpoint& endpoint) const;
  // The same for the `ordinal`-th message of stream `index` (found with find()).
  std::optional<std::uint64_t> flow(std::uint32_t index, std::uint32_t ordinal) const {
    if (!matched(index)) return std::nullopt;
    return flow_id(index, ordinal);
  }
  // The message the receive at `place` of stream `index` was paired with: its place, unless
  // the matching paired it otherwise (a threaded rank's receive, set_received_message).
  std::uint32_t received_message(std::uint32_t index, std::uint32_t place) const {
    if (received_.empty()) return place;
    const auto found = received_.find(std::uint64_t{index} << 32 | place);
    return found == received_.end() ? place : found->second;
  }
  void set_received_message(std::uint32_t index, std::uint32_t place, std::uint32_t message) {
    received_[std::uint64_t{index} << 32 | place] = message;
  }

  // The id of the flow drawn for the `ordinal`-th message (from 0) of stream `index`: bit 63
  // set, bit 62 clear (other flows use it), unique in the job.
  static std::uint64_t flow_id(std::uint32_t index, std::uint32_t ordinal) {
    return message_flow_id(index, ordinal);
  }

 private:
  std::vector<StreamCount> streams_;  // sorted by key
  std::vector<std::uint8_t> matched_;
  std::vector<std::uint8_t> unknown_source_;  // broken by receives of unknown source
  absl::flat_hash_map<StreamKey, std::uint32_t> index_;
  absl::flat_hash_map<std::uint64_t, std::uint32_t> received_;  // (index, place) -> message
};

}  // namespace rocprof::merge
