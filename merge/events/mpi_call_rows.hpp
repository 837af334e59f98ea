#pragma once
// How the exporters and the summary read a rank's MPI-call rows: which rows are calls of their
// own, and what each function does with messages.

#include <cstdint>
#include <string>
#include <vector>

#include "lib/format/rank_file_reader.hpp"
#include "lib/format/records.hpp"

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
  kStart,              // MPI_Start, MPI_Startall: runs persistent requests (a row per request)
};
MpiCallKind mpi_call_kind(const std::string& function);
// A call that only asks whether communication progressed, without waiting for it: MPI_Test
// and kin, MPI_Iprobe, MPI_Improbe, MPI_Request_get_status. A loop of them polls.
bool is_polling_call(const std::string& function);

// Completion calls (MPI_Waitall and kin) record one row per request and then their own row
// (request 0); MPI_Sendrecv records its receive half as a row before its own. These rows carry
// what each request (or half) did; only the call's own row is a call on the timeline.
bool writes_per_request_rows(const std::string& function);

// Both questions per function name of one rank's file, answered once per name (string id)
// rather than once per row.
class MpiFunctions {
 public:
  explicit MpiFunctions(const format::RankFileReader& reader)
      : reader_(reader), known_(reader.string_count(), kUnknown) {}
  MpiCallKind kind(format::StringId function) {
    return static_cast<MpiCallKind>(lookup(function) & kKindBits);
  }
  // is_polling_call, found once per function.
  bool is_polling(format::StringId function) { return (lookup(function) & kPollingCall) != 0; }
  // A row before the call's own (see writes_per_request_rows).
  bool is_per_request_row(const format::MpiCallRow& row) {
    return row.request != 0 && (lookup(row.function) & kPerRequestCall) != 0;
  }

 private:
  static constexpr std::uint8_t kUnknown = 0xff;
  static constexpr std::uint8_t kPerRequestCall = 0x80;
  static constexpr std::uint8_t kPollingCall = 0x40;
  static constexpr std::uint8_t kKindBits = 0x3f;
  // Inline for the rows of a function already seen (every row but a few): the watchers ask
  // several times per MPI call.
  std::uint8_t lookup(format::StringId function) {
    if (function < known_.size() && known_[function] != kUnknown) return known_[function];
    return look_up_first(function);
  }
  std::uint8_t look_up_first(format::StringId function);
  const format::RankFileReader& reader_;
  std::vector<std::uint8_t> known_;
};

}  // namespace rocprof::merge
