#pragma once
// Point-to-point messages as one rank's MPI-call rows record them: which rows send, which
// complete a receive, and on which stream (communicator, source, destination, tag). MPI
// delivers the messages of one stream in order, so the k-th send of a stream is received by
// the stream's k-th receive: the message matcher and the exporters' flows both rely on it.

#include <array>
#include <compare>
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "lib/format/rank_file_reader.hpp"
#include "lib/format/records.hpp"
#include "merge/events/mpi_call_rows.hpp"

namespace rocprof::merge {

struct StreamKey {
  std::uint64_t communicator;
  std::int32_t source;  // world ranks
  std::int32_t destination;
  std::int32_t tag;
  std::int32_t padding = 0;  // plain data: exchanged as bytes between merge processes
  auto operator<=>(const StreamKey&) const = default;  // NOLINT(modernize-use-nullptr)
};

// For Abseil's hash maps (absl::Hash).
template <typename H>
H AbslHashValue(H state, const StreamKey& key) {
  return H::combine(std::move(state), key.communicator, key.source, key.destination, key.tag);
}

// An endpoint's stream on its rank as EndpointScanner numbers it (none: an invisible receive).
inline constexpr std::uint32_t kNoStreamSlot = ~std::uint32_t{0};

struct MessageEndpoint {
  enum class Kind : std::uint8_t {
    kSend,              // time: the send call began
    kReceive,           // time: the call that completed the receive ended
    kInvisibleReceive,  // MPI_Sendrecv's receive in files before 1.1: no source or tag (key:
                        // destination and communicator)
  };
  Kind kind;
  StreamKey stream;
  std::uint64_t local_ns;  // the row's begin or end, on the clock of the rows scanned
  // The endpoint's place among its rank's sends, or receives, of the stream (from 0): MPI
  // matches the k-th send of a stream with the k-th receive posted for it, whatever order the
  // receives complete in (MPI_Waitany, or a later request waited for first).
  std::uint32_t ordinal = 0;
  // The scanner's number for the stream (its sends and its receives of a stream count apart):
  // the caller's value for it is EndpointScanner::value(stream_slot), no key looked up.
  std::uint32_t stream_slot = kNoStreamSlot;
  // When the endpoint took its place in the stream: a send's call began, or the receive was
  // posted. Threads of one rank sharing a stream post in this order, not the file's.
  std::uint64_t posted_ns = 0;
  // When that call ended: the post happened somewhere in [posted_ns, posted_end_ns], so two
  // threads' posts whose calls overlap have no order the rows can tell.
  std::uint64_t posted_end_ns = 0;
};

// Feed it a rank's rows in file order; it remembers which requests are receives and the place
// each posted receive takes in its stream.
class EndpointScanner {
 public:
  EndpointScanner(const format::RankFileReader& reader, std::int32_t rank)
      : functions_(reader), rank_(rank) {}

  // The endpoints `row` records (at most two), in `out`; returns how many.
  std::size_t scan(const format::MpiCallRow& row, std::array<MessageEndpoint, 2>& out);

  // A number the caller keeps per stream (the stream's index in a table of its own, say),
  // kUnset until it sets it: found from an endpoint's stream_slot with no look-up of the
  // stream's key, which was most of a scan's time.
  static constexpr std::uint32_t kUnset = ~std::uint32_t{0};
  std::uint32_t& value(std::uint32_t stream_slot) { return places_.at(stream_slot).value; }

 private:
  struct Taken {
    std::uint32_t ordinal;
    std::uint32_t slot;
  };
  struct Request {
    bool receive = false;
    // A receive posted with its source and tag known takes its place in the stream when
    // posted (MPI_Irecv, or each MPI_Start of MPI_Recv_init's request): its completion then
    // uses it if the message came on that stream. A wildcard one takes the next place when it
    // completes (what it matched is only known then).
    std::optional<Taken> place;
    StreamKey posted{};
    std::uint64_t posted_ns = 0;      // when the receive was posted (or last started)
    std::uint64_t posted_end_ns = 0;  // when that call ended
  };
  struct Place {
    std::uint32_t next = 0;  // the stream's next ordinal
    std::uint32_t value = kUnset;
  };
  Taken next_place(absl::flat_hash_map<StreamKey, std::uint32_t>& slots, const StreamKey& stream) {
    const auto [entry, added] =
        slots.try_emplace(stream, static_cast<std::uint32_t>(places_.size()));
    if (added) places_.emplace_back();
    return {places_[entry->second].next++, entry->second};
  }
  // The place a receive posted on `posted` takes now, or none if its source or tag is a
  // wildcard (it takes the next place when it completes).
  std::optional<Taken> place_when_posted(const StreamKey& posted);
  MessageEndpoint receive_endpoint(const format::MpiCallRow& row, const Request* request);

  MpiFunctions functions_;
  std::int32_t rank_;
  // By thread and handle: threads of one rank (MPI_THREAD_MULTIPLE) reuse each other's
  // freed handles, and a rank's file holds each thread's calls in blocks, not in time order.
  using Requests = absl::flat_hash_map<std::pair<std::uint32_t, std::uint64_t>, Request>;
  Requests::iterator find_request(const format::MpiCallRow& row);
  Requests requests_;
  absl::flat_hash_map<std::uint64_t, std::uint32_t> makers_;        // handle -> its last maker
  absl::flat_hash_map<StreamKey, std::uint32_t> sends_, receives_;  // -> places_
  std::vector<Place> places_;
  // MPI_Sendrecv receive halves read, by thread, until the call's own row.
  absl::flat_hash_map<std::uint32_t, std::optional<MessageEndpoint>> sendrecv_halves_;
};

}  // namespace rocprof::merge
