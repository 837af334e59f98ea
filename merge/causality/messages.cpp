#include "merge/causality/messages.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>

namespace rocprof::merge {
namespace {

using namespace rocprof::format;

const std::set<std::string> kSends = {
    "MPI_Send",   "MPI_Bsend",  "MPI_Ssend",  "MPI_Rsend",    "MPI_Isend",
    "MPI_Ibsend", "MPI_Issend", "MPI_Irsend", "MPI_Sendrecv", "MPI_Sendrecv_replace"};
const std::set<std::string> kSendStarts = {"MPI_Isend",      "MPI_Ibsend",    "MPI_Issend",
                                           "MPI_Irsend",     "MPI_Send_init", "MPI_Bsend_init",
                                           "MPI_Ssend_init", "MPI_Rsend_init"};
const std::set<std::string> kReceiveStarts = {"MPI_Irecv", "MPI_Recv_init"};
const std::set<std::string> kCompletions = {"MPI_Wait",     "MPI_Test",    "MPI_Waitany",
                                            "MPI_Testany",  "MPI_Waitall", "MPI_Testall",
                                            "MPI_Waitsome", "MPI_Testsome"};

using Key =
    std::tuple<std::int32_t, std::int32_t, std::uint64_t, std::int32_t>;  // src dst comm tag

struct Stream {
  std::vector<std::uint64_t> sends;     // begin times, in order
  std::vector<std::uint64_t> receives;  // completion times, in order
  bool broken = false;                  // a receive we cannot see (MPI_Sendrecv)
};

}  // namespace

std::vector<Message> match_messages(const std::vector<const AlignedRank*>& ranks) {
  std::map<Key, Stream> streams;
  for (const AlignedRank* rank : ranks) {
    const RankFileReader& reader = rank->reader();
    std::unordered_map<std::uint64_t, bool> receive_request;  // handle -> is a receive
    rank->for_each_mpi_call([&](const MpiCallRow& row) {
      const std::string& name = reader.string(row.function);
      if (kSends.contains(name) && row.peer >= 0) {
        streams[{rank->rank(), row.peer, row.communicator, row.tag}].sends.push_back(row.begin_ns);
        if (name.starts_with("MPI_Sendrecv"))  // its receive is invisible: this rank's input
          for (auto& [key, stream] : streams)  // streams from any source with that tag break
            if (std::get<1>(key) == rank->rank() && std::get<2>(key) == row.communicator)
              stream.broken = true;
      }
      if (kSendStarts.contains(name) && row.request != 0) receive_request[row.request] = false;
      if (kReceiveStarts.contains(name) && row.request != 0) receive_request[row.request] = true;
      if (name == "MPI_Recv" && row.peer >= 0)
        streams[{row.peer, rank->rank(), row.communicator, row.tag}].receives.push_back(row.end_ns);
      if (kCompletions.contains(name) && row.request != 0) {
        const auto found = receive_request.find(row.request);
        if (found != receive_request.end() && found->second && row.peer >= 0)
          streams[{row.peer, rank->rank(), row.communicator, row.tag}].receives.push_back(
              row.end_ns);
      }
    });
  }
  std::vector<Message> messages;
  for (auto& [key, stream] : streams) {
    if (stream.broken || stream.sends.size() != stream.receives.size()) continue;
    std::sort(stream.receives.begin(), stream.receives.end());
    for (std::size_t i = 0; i < stream.sends.size(); ++i)
      messages.push_back({std::get<0>(key), std::get<1>(key), stream.sends[i], stream.receives[i]});
  }
  return messages;
}

std::uint64_t count_violations(const std::vector<Message>& messages) {
  return static_cast<std::uint64_t>(std::count_if(
      messages.begin(), messages.end(), [](const Message& m) { return m.receive_ns < m.send_ns; }));
}

CausalityReport correct_causality(const std::vector<AlignedRank*>& ranks, int max_passes) {
  CausalityReport report;
  std::vector<const AlignedRank*> views(ranks.begin(), ranks.end());
  std::vector<Message> messages = match_messages(views);
  report.messages = messages.size();
  report.violations_before = count_violations(messages);
  std::map<std::int32_t, AlignedRank*> by_rank;
  for (AlignedRank* rank : ranks) by_rank[rank->rank()] = rank;
  for (int pass = 0; pass < max_passes && count_violations(messages) > 0; ++pass) {
    // Per destination rank, the forward steps this pass needs, at each violating receive.
    std::map<std::int32_t, std::vector<std::pair<std::uint64_t, std::uint64_t>>> steps;
    for (const Message& m : messages)
      if (m.receive_ns < m.send_ns)
        steps[m.destination].emplace_back(m.receive_ns, m.send_ns - m.receive_ns);
    for (auto& [rank, list] : steps) {
      std::sort(list.begin(), list.end());
      // Latest first: a step never moves the receives that come after it in this pass.
      for (auto it = list.rbegin(); it != list.rend(); ++it)
        by_rank.at(rank)->add_correction_step(it->first, it->second);
      report.max_shift_ns = std::max(report.max_shift_ns, by_rank.at(rank)->max_correction());
    }
    messages = match_messages(views);
  }
  report.violations_after = count_violations(messages);
  return report;
}

}  // namespace rocprof::merge
