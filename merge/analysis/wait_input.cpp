#include "merge/analysis/wait_input.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace rocprof::merge {
namespace {

// Name keys: what a name is of, in the top bits, and the rank's ids for it.
constexpr std::uint64_t kFunctionName = 1ULL << 60;
constexpr std::uint64_t kRegionName = 2ULL << 60;
constexpr std::uint64_t kApiName = 3ULL << 60;
constexpr std::uint64_t kKernelName = 4ULL << 60;
constexpr std::uint64_t kWorkName = 5ULL << 60;

// Lane kinds.
constexpr std::uint64_t kRegionLane = 1;
constexpr std::uint64_t kThreadLane = 2;  // MPI and API calls of a thread
constexpr std::uint64_t kQueueLane = 3;

}  // namespace

void RankWaitInput::put(ByteWriter& out) const {
  out.put(rank);
  out.put<std::uint64_t>(names.size());
  for (const std::string& name : names) out.put_string(name);
  out.put_vector(messages);
  out.put_vector(collectives);
  out.put_vector(doings);
  out.put_vector(region_lanes);
  out.put(joined_within_ns);
}

RankWaitInput RankWaitInput::get(ByteReader& in) {
  RankWaitInput input;
  input.rank = in.get<std::int32_t>();
  const auto names = in.get<std::uint64_t>();
  for (std::uint64_t i = 0; i < names; ++i) input.names.push_back(in.get_string());
  input.messages = in.get_vector<MessageEnd>();
  input.collectives = in.get_vector<CollectiveCall>();
  input.doings = in.get_vector<Doing>();
  input.region_lanes = in.get_vector<RegionLane>();
  input.joined_within_ns = in.get<std::uint64_t>();
  const auto bad = [&](std::uint32_t name) { return name >= input.names.size(); };
  if (std::any_of(input.messages.begin(), input.messages.end(),
                  [&](const MessageEnd& end) { return bad(end.function); }) ||
      std::any_of(input.collectives.begin(), input.collectives.end(),
                  [&](const CollectiveCall& call) { return bad(call.function); }) ||
      std::any_of(input.doings.begin(), input.doings.end(),
                  [&](const Doing& doing) { return bad(doing.name); }) ||
      !std::is_sorted(input.doings.begin(), input.doings.end(), doing_order))
    throw std::runtime_error("a merge process sent a damaged wait-state part");
  return input;
}

WaitInputGatherer::WaitInputGatherer(const AlignedRank& rank, std::size_t doings_budget)
    : rank_(rank), doings_(doings_budget), functions_(rank.reader()) {
  input_.rank = rank.rank();
}

std::uint32_t WaitInputGatherer::intern(std::uint64_t key,
                                        const std::function<std::string()>& name) {
  const auto [entry, added] =
      names_.try_emplace(key, static_cast<std::uint32_t>(input_.names.size()));
  if (added) input_.names.push_back(name());
  return entry->second;
}

std::uint32_t WaitInputGatherer::lane(std::uint64_t kind, std::uint64_t key) {
  const auto [entry, added] = lanes_.try_emplace(std::pair{kind, key}, lane_count_);
  if (added) ++lane_count_;
  return entry->second;
}

const OpNames& WaitInputGatherer::op_names() {
  if (!op_names_) op_names_.emplace(rank_.reader());
  return *op_names_;
}

void WaitInputGatherer::add_doing(const Doing& doing) { doings_.add(doing); }

void WaitInputGatherer::prepare_mpi_calls() {
  if (!flows_) flows_.emplace(rank_);
}

void WaitInputGatherer::mpi_call(const format::MpiCallRow& row) {
  prepare_mpi_calls();
  std::vector<MessageFlow>& pending = flows_->advance(row);
  if (functions_.is_per_request_row(row)) return;
  const format::RankFileReader& reader = rank_.reader();
  const auto function = static_cast<std::uint16_t>(
      intern(kFunctionName | row.function, [&] { return reader.string(row.function); }));
  const auto kind = static_cast<std::uint8_t>(functions_.kind(row.function));
  for (const MessageFlow& flow : pending)
    input_.messages.push_back({flow.flow, row.begin_ns, row.end_ns,
                               flow.starts ? row.begin_ns : flow.posted_ns, row.thread_id, function,
                               kind, static_cast<std::uint8_t>(flow.starts ? 1 : 0)});
  pending.clear();
  auto [collective, added] = collective_kinds_.try_emplace(row.function, CollectiveKind::kNone);
  if (added) collective->second = collective_kind(input_.names[function]);
  if (collective->second != CollectiveKind::kNone) {
    const bool rooted = collective->second == CollectiveKind::kOneToN ||
                        collective->second == CollectiveKind::kNToOne;
    input_.collectives.push_back({row.communicator, row.begin_ns, row.end_ns,
                                  sequences_[row.communicator]++, rooted ? row.peer : -1,
                                  row.thread_id, function, collective->second});
  }
  add_doing(
      {row.begin_ns, row.end_ns, function, lane(kThreadLane, row.thread_id), DoingKind::kMpiCall});
}

void WaitInputGatherer::range(const Range& range) {
  if (!range.nested) return;  // start/stop ranges do not nest: not on a call path
  const format::RankFileReader& reader = rank_.reader();
  const std::uint32_t name =
      intern(kRegionName | range.name, [&] { return reader.string(range.name); });
  const std::uint64_t key = std::uint64_t{range.thread_id} << 32 | range.level;
  const std::uint32_t before = lane_count_;
  const std::uint32_t region_lane = lane(kRegionLane, key);
  if (lane_count_ != before)
    input_.region_lanes.push_back({region_lane, range.thread_id, range.level});
  add_doing(Doing(range.begin_ns, range.end_ns, name, region_lane, DoingKind::kRegion));
}

void WaitInputGatherer::api_call(const format::ApiCallRow& row) {
  const std::uint32_t name = intern(kApiName | std::uint64_t{row.domain} << 32 | row.op,
                                    [&] { return op_names()(row.domain, row.op); });
  add_doing(
      {row.begin_ns, row.end_ns, name, lane(kThreadLane, row.thread_id), DoingKind::kApiCall});
}

void WaitInputGatherer::activity(const format::ActivityRow& row) {
  const std::uint32_t name =
      row.kernel_name != 0
          ? intern(kKernelName | row.kernel_name,
                   [&] { return "kernel " + op_names().kernel_name(row); })
          : intern(kWorkName | std::uint64_t{row.domain} << 40 | std::uint64_t{row.op} << 32 |
                       (OpNames::is_named_copy(row) ? row.kind : 0),
                   [&] { return op_names().of_activity(row); });
  add_doing(
      Doing(row.begin_ns, row.end_ns, name, lane(kQueueLane, row.queue_id), DoingKind::kGpuWork));
}

RankWaitInput WaitInputGatherer::finish() {
  input_.joined_within_ns = doings_.joined_within_ns();
  input_.doings = doings_.take();
  return std::move(input_);
}

}  // namespace rocprof::merge
