#include "merge/events/mpi_call_rows.hpp"

#include <set>
#include <unordered_map>

namespace rocprof::merge {

MpiCallKind mpi_call_kind(const std::string& function) {
  using enum MpiCallKind;
  static const std::unordered_map<std::string, MpiCallKind> kKinds = {
      {"MPI_Send", kBlockingSend},
      {"MPI_Bsend", kBlockingSend},
      {"MPI_Ssend", kBlockingSend},
      {"MPI_Rsend", kBlockingSend},
      {"MPI_Sendrecv", kSendrecv},
      {"MPI_Sendrecv_replace", kSendrecv},
      {"MPI_Isend", kImmediateSend},
      {"MPI_Ibsend", kImmediateSend},
      {"MPI_Issend", kImmediateSend},
      {"MPI_Irsend", kImmediateSend},
      {"MPI_Send_init", kPersistentSend},
      {"MPI_Bsend_init", kPersistentSend},
      {"MPI_Ssend_init", kPersistentSend},
      {"MPI_Rsend_init", kPersistentSend},
      {"MPI_Recv", kReceive},
      {"MPI_Irecv", kImmediateReceive},
      {"MPI_Recv_init", kPersistentReceive},
      {"MPI_Wait", kCompletion},
      {"MPI_Test", kCompletion},
      {"MPI_Waitany", kCompletion},
      {"MPI_Testany", kCompletion},
      {"MPI_Waitall", kCompletion},
      {"MPI_Testall", kCompletion},
      {"MPI_Waitsome", kCompletion},
      {"MPI_Testsome", kCompletion},
      {"MPI_Start", kStart},
      {"MPI_Startall", kStart},
  };
  const auto found = kKinds.find(function);
  return found == kKinds.end() ? kOther : found->second;
}

bool writes_per_request_rows(const std::string& function) {
  // Also MPI_Sendrecv's receive half (request kCallPartRequest, format 1.1).
  static const std::set<std::string> kPerRequestCalls = {
      "MPI_Waitall",  "MPI_Testall",  "MPI_Waitsome",        "MPI_Testsome",
      "MPI_Startall", "MPI_Sendrecv", "MPI_Sendrecv_replace"};
  return kPerRequestCalls.contains(function);
}

std::uint8_t MpiFunctions::look_up_first(format::StringId function) {
  if (function >= known_.size()) reader_.string(function);  // throws: not in the string table
  std::uint8_t& known = known_[function];
  if (known == kUnknown) {
    const std::string& name = reader_.string(function);
    known = static_cast<std::uint8_t>(static_cast<std::uint8_t>(mpi_call_kind(name)) |
                                      (writes_per_request_rows(name) ? kPerRequestCall : 0) |
                                      (is_polling_call(name) ? kPollingCall : 0));
  }
  return known;
}

bool is_polling_call(const std::string& function) {
  return function == "MPI_Test" || function == "MPI_Testany" || function == "MPI_Testall" ||
         function == "MPI_Testsome" || function == "MPI_Iprobe" || function == "MPI_Improbe" ||
         function == "MPI_Request_get_status";
}

}  // namespace rocprof::merge
