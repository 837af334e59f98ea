#pragma once
// The OTF2 MPI event records (sends, receives, request completions, collectives) that a rank's
// MPI-call rows stand for, with peers and roots translated to ranks within the communicator,
// as OTF2 wants them.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lib/format/records.hpp"
#include "merge/events/aligned_rank.hpp"

namespace rocprof::merge {

// The job's intracommunicators, from every rank's communicator rows: members in
// communicator-rank order, as world ranks. Only communicators whose every member was seen
// (all ranks' files present) get an OTF2 reference.
class Otf2Communicators {
 public:
  explicit Otf2Communicators(const std::vector<const AlignedRank*>& ranks);

  struct Communicator {
    std::uint32_t ref;                  // dense OTF2 reference
    std::uint64_t id;                   // job-wide id from the rank files
    std::uint64_t parent;               // job-wide id, 0 if none
    std::string creator;                // "MPI_COMM_WORLD", "MPI_Comm_split", ...
    std::vector<std::int32_t> members;  // world rank of each communicator rank
  };
  const std::vector<Communicator>& all() const noexcept { return complete_; }
  const Communicator* find(std::uint64_t id) const;
  // The rank of `world_rank` inside the communicator, if it is a member.
  std::optional<std::uint32_t> rank_in(const Communicator& comm, std::int32_t world_rank) const;

 private:
  std::vector<Communicator> complete_;
  std::map<std::uint64_t, std::size_t> by_id_;
  std::map<std::pair<std::uint64_t, std::int32_t>, std::uint32_t> rank_of_;
};

struct Otf2MpiRecord {
  enum class Kind : std::uint8_t {
    kSend,
    kIsend,
    kIsendComplete,
    kIrecvRequest,
    kRecv,
    kIrecv,
    kCollectiveBegin,
    kCollectiveEnd,
    kCollectiveRequest,   // a non-blocking collective started (MPI_Iallreduce and kin)
    kCollectiveComplete,  // ... and completed, with what a blocking one's end carries
  };
  Kind kind;
  std::uint32_t peer;          // receiver, sender or root (a communicator rank); undefined if none
  std::uint32_t communicator;  // OTF2 reference
  std::uint32_t tag;
  std::uint64_t bytes;           // message length, or bytes sent by a collective
  std::uint64_t bytes_received;  // collectives
  std::uint64_t request;
  std::uint8_t collective_op;  // OTF2_CollectiveOp
};

// The records of one drawn MPI call: those at its begin (after its Enter) and those at its end
// (before its Leave).
struct Otf2MpiCallRecords {
  std::vector<Otf2MpiRecord> at_begin;
  std::vector<Otf2MpiRecord> at_end;
};

// Walks a rank's MPI-call rows in file order. Per-request rows of MPI_Waitall and kin are not
// drawn; their completions wait for the call's own row, which follows on the same thread.
class Otf2MpiEventMaker {
 public:
  explicit Otf2MpiEventMaker(const Otf2Communicators& communicators)
      : communicators_(communicators) {}

  // Call for every row, in file order. For a drawn row with records: 1 + the index of its
  // records for call(); else 0.
  std::uint32_t advance(const std::string& function, const format::MpiCallRow& row, bool drawn);
  // Final only once every row was seen: a receive from MPI_PROC_NULL (which cannot be told
  // from MPI_ANY_SOURCE when posted) takes back its posting record at completion.
  const Otf2MpiCallRecords& call(std::uint32_t index) const { return calls_[index - 1]; }

 private:
  struct Request {
    bool receive;
    std::size_t posted_call;                  // index in calls_
    std::optional<Otf2MpiRecord> collective;  // the completion of a non-blocking collective
  };
  const Otf2Communicators& communicators_;
  std::vector<Otf2MpiCallRecords> calls_;
  std::map<std::uint64_t, Request> requests_;
  std::map<std::uint64_t, bool> persistent_;  // persistent request -> is a receive
  std::map<std::uint32_t, std::vector<Otf2MpiRecord>> pending_;  // by thread
};

}  // namespace rocprof::merge
