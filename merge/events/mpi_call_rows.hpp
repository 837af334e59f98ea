#pragma once
// How the exporters and the summary read a rank's MPI-call rows: which rows are calls of their
// own, and which message flows each drawn call starts or ends.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "lib/format/rank_file_reader.hpp"
#include "lib/format/records.hpp"
#include "merge/events/aligned_rank.hpp"

namespace rocprof::merge {

// What an MPI call does with messages, as the message matcher and the OTF2 exporter read it.
enum class MpiCallKind : std::uint8_t {
  kOther,
  kBlockingSend,       // MPI_Send, _Bsend, _Ssend, _Rsend
  kSendrecv,           // MPI_Sendrecv, _Sendrecv_replace: a send; its receive names no source
  kImmediateSend,      // MPI_Isend and kin: starts a request
  kPersistentSend,     // MPI_Send_init and kin: makes a request that MPI_Start runs
  kReceive,            // MPI_Recv
  kImmediateReceive,   // MPI_Irecv
  kPersistentReceive,  // MPI_Recv_init
  kCompletion,         // MPI_Wait*, MPI_Test*: completes requests
};
MpiCallKind mpi_call_kind(const std::string& function);

// Completion calls (MPI_Waitall and kin) record one row per request and then their own row
// (request 0). The per-request rows carry what each request completed; only the call's own row
// is a call on the timeline.
bool is_per_request_row(const std::string& function, const format::MpiCallRow& row);

// The two questions above per function name of one rank's file, answered once per name
// (string id) rather than once per row.
class MpiFunctions {
 public:
  explicit MpiFunctions(const format::RankFileReader& reader)
      : reader_(reader), known_(reader.string_count(), kUnknown) {}
  MpiCallKind kind(format::StringId function) {
    return static_cast<MpiCallKind>(lookup(function) & 0x7f);
  }
  bool is_per_request_row(const format::MpiCallRow& row) {
    return row.request != 0 && (lookup(row.function) & kPerRequestCall) != 0;
  }

 private:
  static constexpr std::uint8_t kUnknown = 0xff;
  static constexpr std::uint8_t kPerRequestCall = 0x80;
  std::uint8_t lookup(format::StringId function);
  const format::RankFileReader& reader_;
  std::vector<std::uint8_t> known_;
};

// Walks the MPI-call rows in file order and collects the message flows each row starts or ends.
// Per-request rows are not drawn, so their flows wait for the next drawn row on the same
// thread, which is the completion call they belong to.
class MessageFlowCursor {
 public:
  explicit MessageFlowCursor(const AlignedRank& rank) : flows_(rank.message_flows()) {}

  // Call once per row, in file order. Returns the flows to draw on this row if it is drawn;
  // clear the vector after drawing them.
  std::vector<AlignedRank::MessageFlow>& advance(const format::MpiCallRow& row) {
    ++sequence_;
    std::vector<AlignedRank::MessageFlow>& pending = pending_[row.thread_id];
    while (next_ < flows_.size() && flows_[next_].sequence < sequence_) ++next_;
    for (; next_ < flows_.size() && flows_[next_].sequence == sequence_; ++next_)
      pending.push_back(flows_[next_]);
    return pending;
  }

 private:
  const std::vector<AlignedRank::MessageFlow>& flows_;  // sorted by sequence
  std::size_t next_ = 0;
  std::uint32_t sequence_ = 0;  // 1-based row number, as the matcher counts
  std::map<std::uint32_t, std::vector<AlignedRank::MessageFlow>> pending_;  // by thread
};

}  // namespace rocprof::merge
