#include "merge/export/otf2_mpi_events.hpp"

#include <otf2/otf2.h>

#include <cctype>
#include <unordered_map>

#include "merge/events/mpi_call_rows.hpp"

namespace rocprof::merge {
namespace {

using namespace rocprof::format;
using Kind = Otf2MpiRecord::Kind;

struct Collective {
  OTF2_CollectiveOp op;
  bool rooted;
};
const std::unordered_map<std::string, Collective> kCollectives = {
    {"MPI_Barrier", {OTF2_COLLECTIVE_OP_BARRIER, false}},
    {"MPI_Bcast", {OTF2_COLLECTIVE_OP_BCAST, true}},
    {"MPI_Gather", {OTF2_COLLECTIVE_OP_GATHER, true}},
    {"MPI_Gatherv", {OTF2_COLLECTIVE_OP_GATHERV, true}},
    {"MPI_Scatter", {OTF2_COLLECTIVE_OP_SCATTER, true}},
    {"MPI_Scatterv", {OTF2_COLLECTIVE_OP_SCATTERV, true}},
    {"MPI_Allgather", {OTF2_COLLECTIVE_OP_ALLGATHER, false}},
    {"MPI_Allgatherv", {OTF2_COLLECTIVE_OP_ALLGATHERV, false}},
    {"MPI_Alltoall", {OTF2_COLLECTIVE_OP_ALLTOALL, false}},
    {"MPI_Alltoallv", {OTF2_COLLECTIVE_OP_ALLTOALLV, false}},
    {"MPI_Alltoallw", {OTF2_COLLECTIVE_OP_ALLTOALLW, false}},
    {"MPI_Allreduce", {OTF2_COLLECTIVE_OP_ALLREDUCE, false}},
    {"MPI_Reduce", {OTF2_COLLECTIVE_OP_REDUCE, true}},
    {"MPI_Reduce_scatter", {OTF2_COLLECTIVE_OP_REDUCE_SCATTER, false}},
    {"MPI_Reduce_scatter_block", {OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK, false}},
    {"MPI_Scan", {OTF2_COLLECTIVE_OP_SCAN, false}},
    {"MPI_Exscan", {OTF2_COLLECTIVE_OP_EXSCAN, false}},
};

// MPI_Iallreduce for MPI_Allreduce, and so on.
const std::unordered_map<std::string, Collective>& non_blocking_collectives() {
  static const std::unordered_map<std::string, Collective> kNonBlocking = [] {
    std::unordered_map<std::string, Collective> out;
    for (const auto& [name, collective] : kCollectives) {
      std::string immediate = "MPI_I" + name.substr(4);
      immediate[5] = static_cast<char>(std::tolower(static_cast<unsigned char>(immediate[5])));
      out.emplace(std::move(immediate), collective);
    }
    return out;
  }();
  return kNonBlocking;
}

Otf2MpiRecord record(Kind kind) {
  return {kind, OTF2_UNDEFINED_UINT32, OTF2_UNDEFINED_COMM, OTF2_UNDEFINED_UINT32, 0, 0, 0, 0};
}

}  // namespace

Otf2Communicators::Otf2Communicators(const std::vector<const AlignedRank*>& ranks) {
  struct Seen {
    std::uint64_t parent = 0;
    std::string creator;
    std::int32_t size = 0;
    bool intercommunicator = false;
    std::map<std::int32_t, std::int32_t> members;  // communicator rank -> world rank
  };
  std::map<std::uint64_t, Seen> seen;
  for (const AlignedRank* rank : ranks) {
    const RankFileReader& reader = rank->reader();
    for (const CommunicatorRow& row : reader.read_all<CommunicatorRow>()) {
      Seen& comm = seen[row.communicator];
      comm.parent = row.parent;
      comm.creator = reader.string(row.creator);
      comm.size = row.size;
      comm.intercommunicator = comm.intercommunicator || row.remote_size != 0;
      comm.members[row.rank] = rank->rank();
    }
    reader.release();  // every rank's file: none may stay open
  }
  for (auto& [id, comm] : seen) {
    if (comm.intercommunicator || comm.size <= 0 ||
        comm.members.size() != static_cast<std::size_t>(comm.size) ||
        comm.members.rbegin()->first != comm.size - 1)
      continue;  // incomplete (ranks missing) or an intercommunicator: regions only
    Communicator out{
        static_cast<std::uint32_t>(complete_.size()), id, comm.parent, comm.creator, {}};
    for (const auto& [comm_rank, world_rank] : comm.members) {
      out.members.push_back(world_rank);
      rank_of_[{id, world_rank}] = static_cast<std::uint32_t>(comm_rank);
    }
    by_id_[id] = complete_.size();
    complete_.push_back(std::move(out));
  }
}

const Otf2Communicators::Communicator* Otf2Communicators::find(std::uint64_t id) const {
  const auto found = by_id_.find(id);
  return found == by_id_.end() ? nullptr : &complete_[found->second];
}

std::optional<std::uint32_t> Otf2Communicators::rank_in(const Communicator& comm,
                                                        std::int32_t world_rank) const {
  const auto found = rank_of_.find({comm.id, world_rank});
  if (found == rank_of_.end()) return std::nullopt;
  return found->second;
}

std::uint32_t Otf2MpiEventMaker::advance(const std::string& function, const MpiCallRow& row,
                                         bool drawn) {
  Otf2MpiCallRecords records;
  std::vector<Otf2MpiRecord>& pending = pending_[row.thread_id];
  const Otf2Communicators::Communicator* comm = communicators_.find(row.communicator);
  auto peer = [&]() -> std::optional<std::uint32_t> {
    if (comm == nullptr || row.peer < 0) return std::nullopt;
    return communicators_.rank_in(*comm, row.peer);
  };
  auto message = [&](Kind kind, std::uint32_t rank, std::uint64_t bytes) {
    Otf2MpiRecord out = record(kind);
    out.peer = rank;
    out.communicator = comm->ref;
    out.tag = static_cast<std::uint32_t>(row.tag);
    out.bytes = bytes;
    out.request = row.request;
    return out;
  };
  // The record that ends a collective (blocking or not): operation, root, bytes both ways.
  auto collective_end = [&](Kind kind, const Collective& collective) {
    Otf2MpiRecord out = record(kind);
    out.communicator = comm->ref;
    out.collective_op = static_cast<std::uint8_t>(collective.op);
    if (collective.rooted)
      if (const auto root = peer()) out.peer = *root;
    out.bytes = row.bytes_sent;
    out.bytes_received = row.bytes_received;
    return out;
  };

  const MpiCallKind kind = mpi_call_kind(function);
  if (kind == MpiCallKind::kSendrecv && row.request == kCallPartRequest) {
    // MPI_Sendrecv's receive half (format 1.1): received when the call ends.
    if (const auto from = peer())
      pending.push_back(message(Kind::kRecv, *from, row.bytes_received));
  } else if (kind == MpiCallKind::kBlockingSend || kind == MpiCallKind::kSendrecv) {
    if (const auto to = peer())
      records.at_begin.push_back(message(Kind::kSend, *to, row.bytes_sent));
  } else if (kind == MpiCallKind::kReceive) {
    if (const auto from = peer())
      records.at_end.push_back(message(Kind::kRecv, *from, row.bytes_received));
  } else if (kind == MpiCallKind::kImmediateSend && row.request != 0) {
    if (const auto to = peer()) {
      records.at_begin.push_back(message(Kind::kIsend, *to, row.bytes_sent));
      requests_[row.request] = {false, calls_.size(), std::nullopt};
    }
  } else if (kind == MpiCallKind::kImmediateReceive && row.request != 0) {
    Otf2MpiRecord request = record(Kind::kIrecvRequest);
    request.request = row.request;
    records.at_begin.push_back(request);
    requests_[row.request] = {true, calls_.size(), std::nullopt};
  } else if ((kind == MpiCallKind::kPersistentSend || kind == MpiCallKind::kPersistentReceive) &&
             row.request != 0) {
    persistent_[row.request] = kind == MpiCallKind::kPersistentReceive;
  } else if (kind == MpiCallKind::kStart && row.request != 0) {
    // Each start of a persistent request is a send or a posted receive of its own (at the
    // MPI_Start, or at the end of the MPI_Startall that started it).
    if (const auto found = persistent_.find(row.request); found != persistent_.end()) {
      std::vector<Otf2MpiRecord>& out = drawn ? records.at_begin : pending;
      if (!found->second) {
        if (const auto to = peer()) {
          out.push_back(message(Kind::kIsend, *to, row.bytes_sent));
          requests_[row.request] = {false, calls_.size(), std::nullopt};
        }
      } else {
        Otf2MpiRecord request = record(Kind::kIrecvRequest);
        request.request = row.request;
        out.push_back(request);
        requests_[row.request] = {true, calls_.size(), std::nullopt};
      }
    }
  } else if (kind == MpiCallKind::kCompletion && row.request != 0) {
    // A request we saw start; unmatched ones are left out.
    if (const auto found = requests_.find(row.request); found != requests_.end()) {
      if (found->second.collective) {
        pending.push_back(*found->second.collective);
      } else if (!found->second.receive) {
        Otf2MpiRecord done = record(Kind::kIsendComplete);
        done.request = row.request;
        pending.push_back(done);
      } else if (const auto from = peer()) {
        pending.push_back(message(Kind::kIrecv, *from, row.bytes_received));
      } else {
        // Completed without a sender (MPI_PROC_NULL): no message, so no request either.
        auto posted_request = [&](const Otf2MpiRecord& r) {
          return r.kind == Kind::kIrecvRequest && r.request == row.request;
        };
        if (found->second.posted_call < calls_.size()) {
          std::erase_if(calls_[found->second.posted_call].at_begin, posted_request);
          std::erase_if(calls_[found->second.posted_call].at_end, posted_request);
        }
      }
      requests_.erase(found);
    }
  } else if (const auto immediate = non_blocking_collectives().find(function);
             immediate != non_blocking_collectives().end() && comm != nullptr && row.request != 0) {
    Otf2MpiRecord start = record(Kind::kCollectiveRequest);
    start.request = row.request;
    records.at_begin.push_back(start);
    Otf2MpiRecord done = collective_end(Kind::kCollectiveComplete, immediate->second);
    done.request = row.request;
    requests_[row.request] = {false, calls_.size(), done};
  } else if (const auto collective = kCollectives.find(function);
             collective != kCollectives.end() && comm != nullptr) {
    records.at_begin.push_back(record(Kind::kCollectiveBegin));
    records.at_end.push_back(collective_end(Kind::kCollectiveEnd, collective->second));
  }
  if (!drawn) return 0;
  records.at_end.insert(records.at_end.begin(), pending.begin(), pending.end());
  pending.clear();
  if (records.at_begin.empty() && records.at_end.empty()) return 0;
  calls_.push_back(std::move(records));
  return static_cast<std::uint32_t>(calls_.size());
}

}  // namespace rocprof::merge
