#include "merge/analysis/wait_input.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "merge/events/gpu_names.hpp"

namespace rocprof::merge {
namespace {

// Name keys: what a name is of, in the top bits, and the rank's ids for it.
constexpr std::uint64_t kRegionName = 2ULL << 60;
constexpr std::uint64_t kApiName = 3ULL << 60;
constexpr std::uint64_t kKernelName = 4ULL << 60;
constexpr std::uint64_t kWorkName = 5ULL << 60;

// Lane kinds.
constexpr std::uint64_t kRegionLane = 1;
constexpr std::uint64_t kThreadLane = 2;  // MPI and API calls of a thread
constexpr std::uint64_t kQueueLane = 3;

}  // namespace

std::size_t RankWaitInput::spilled_count() const {
  std::size_t count = 0;
  for (const SpilledBlock& block : spilled_messages) count += block.items();
  for (const SpilledBlock& block : spilled_collectives) count += block.items();
  return count;
}

std::size_t RankWaitInput::message_count() const {
  std::size_t count = messages.size();
  for (const SpilledBlock& block : spilled_messages) count += block.items();
  return count;
}

std::size_t RankWaitInput::collective_count() const {
  std::size_t count = collectives.size();
  for (const SpilledBlock& block : spilled_collectives) count += block.items();
  return count;
}

namespace {

// The items of `range`: the spilled blocks' in the order spilled, then those still held.
// A range short of the whole first orders the held ones by slice (once: `starts` says where
// each slice begins), so that each range of them is then copied rather than looked for.
template <typename T>
void items_in(SliceRange range, std::vector<T>& held,
              std::optional<std::array<std::uint32_t, kEndSlices + 1>>& starts,
              const std::vector<SpilledBlock>& blocks, const EndSpill* spill, std::vector<T>& out) {
  if (!range.whole() && !starts)
    starts = order_by_slice(held, [](const T& item) { return slice_of(item); });
  std::size_t spilled = 0;  // read in exactly: a round's vectors hold no slack
  for (const SpilledBlock& block : blocks)
    spilled += block.starts[range.last] - block.starts[range.first];
  const std::size_t held_first = range.whole() ? 0 : (*starts)[range.first];
  const std::size_t held_last = range.whole() ? held.size() : (*starts)[range.last];
  out.reserve(out.size() + spilled + (held_last - held_first));
  for (const SpilledBlock& block : blocks) spill->read(block, range, out);
  out.insert(out.end(), held.begin() + static_cast<std::ptrdiff_t>(held_first),
             held.begin() + static_cast<std::ptrdiff_t>(held_last));
}

}  // namespace

void RankWaitInput::messages_in(SliceRange range, std::vector<MessageEnd>& out) {
  items_in(range, messages, held_message_starts, spilled_messages, spill.get(), out);
}

void RankWaitInput::collectives_in(SliceRange range, std::vector<CollectiveCall>& out) {
  items_in(range, collectives, held_collective_starts, spilled_collectives, spill.get(), out);
}

void RankWaitInput::put(ByteWriter& out, Part part) const {
  const bool whole = part == Part::kWhole;
  if (whole && spilled()) throw std::logic_error("a spilled wait-state input cannot travel");
  out.put(rank);
  out.put<std::uint64_t>(names.size());
  for (const std::string& name : names) out.put_string(name);
  out.put_vector(whole ? messages : std::vector<MessageEnd>{});
  out.put_vector(whole ? collectives : std::vector<CollectiveCall>{});
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

WaitInputGatherer::WaitInputGatherer(const AlignedRank& rank, std::size_t doings_budget,
                                     std::shared_ptr<EndSpill> spill, std::size_t spill_step)
    : rank_(rank.rank()),
      messages_(rank, std::move(spill), spill_step),
      doings_(rank, doings_budget) {}

RankWaitInput WaitInputGatherer::finish() {
  // Once the process spilled, what the rank still holds goes to the file too, as its last
  // block (read after the others): the analysis then holds a round's ends and calls, not up
  // to twice the budget besides.
  if (messages_.spill_ && messages_.spill_->spilled_bytes() > 0) messages_.spill_all();
  // The halves' names one after the other: the doings' are numbered past the messages'.
  RankWaitInput input;
  input.rank = rank_;
  input.names = std::move(messages_.names_);
  const auto offset = static_cast<std::uint32_t>(input.names.size());
  input.message_names = offset;
  input.names.insert(input.names.end(), std::make_move_iterator(doings_.names_.begin()),
                     std::make_move_iterator(doings_.names_.end()));
  input.messages = std::move(messages_.messages_);
  input.collectives = std::move(messages_.collectives_);
  input.spill = messages_.spill_;
  input.spilled_messages = std::move(messages_.spilled_messages_);
  input.spilled_collectives = std::move(messages_.spilled_collectives_);
  messages_.finished_ = true;
  input.joined_within_ns = doings_.doings_.joined_within_ns();
  input.doings = doings_.doings_.take();
  for (Doing& doing : input.doings) doing.name += offset;
  input.region_lanes = std::move(doings_.region_lanes_);
  return input;
}

WaitInputGatherer::Messages::Messages(const AlignedRank& rank, std::shared_ptr<EndSpill> spill,
                                      std::size_t step)
    : rank_(rank),
      functions_(rank.reader()),
      by_id_(rank.reader().string_count()),
      spill_(std::move(spill)),
      step_(std::max<std::size_t>(step, 1)) {}

WaitInputGatherer::Messages::~Messages() {
  // A rank gathered afresh (watch_again) or given up: what it held is no one's now.
  if (spill_ && !finished_) spill_->let_go(held_);
}

void WaitInputGatherer::Messages::took_on() {
  if (!spill_ || ++unchecked_ < step_) return;
  unchecked_ = 0;
  // What the vectors take, not what they hold: they grow by doubling.
  const std::size_t bytes = (messages_.capacity() + collectives_.capacity()) * sizeof(MessageEnd);
  if (bytes <= held_) return;
  const std::size_t more = bytes - held_;
  held_ = bytes;
  // Over the budget, a gatherer spills once it holds its share of it (kSpillShare steps):
  // one that spilled whatever it held at each look wrote tiny blocks, and a large job kept
  // a slice table (SpilledBlock) per block until the analysis.
  if (spill_->hold(more) && held_ >= kSpillShare * step_ * sizeof(MessageEnd)) spill_all();
}

void WaitInputGatherer::Messages::spill_all() {
  static_assert(sizeof(MessageEnd) == sizeof(CollectiveCall));
  if (!messages_.empty())
    spilled_messages_.push_back(
        spill_->spill(messages_, [](const MessageEnd& end) { return slice_of(end); }));
  if (!collectives_.empty())
    spilled_collectives_.push_back(
        spill_->spill(collectives_, [](const CollectiveCall& call) { return slice_of(call); }));
  // What the vectors grew to while the process was under its budget goes too.
  std::vector<MessageEnd>().swap(messages_);
  std::vector<CollectiveCall>().swap(collectives_);
  spill_->let_go(held_);
  held_ = 0;
}

void WaitInputGatherer::Messages::prepare() {
  if (!flows_) flows_.emplace(rank_);
}

const WaitInputGatherer::Messages::Function& WaitInputGatherer::Messages::function(
    format::StringId id) {
  if (id >= by_id_.size()) by_id_.resize(std::size_t{id} + 1);
  Function& found = by_id_[id];
  if (found.name < 0) {
    found.name = static_cast<std::int32_t>(names_.size());
    names_.push_back(rank_.reader().string(id));
    found.kind = static_cast<std::uint8_t>(functions_.kind(id));
    found.collective = collective_kind(names_.back());
  }
  return found;
}

void WaitInputGatherer::Messages::mpi_call(const format::MpiCallRow& row) {
  prepare();
  std::vector<MessageFlow>& pending = flows_->advance(row);
  if (functions_.is_per_request_row(row)) return;
  const Function& called = function(row.function);
  const auto name = static_cast<std::uint16_t>(called.name);
  const auto receives =
      std::count_if(pending.begin(), pending.end(), [](const MessageFlow& f) { return !f.starts; });
  const std::uint8_t receive_flags = receives == 1 ? MessageEnd::kSoleReceive : 0;
  for (const MessageFlow& flow : pending) {
    messages_.push_back(
        {flow.flow, row.begin_ns, row.end_ns,
         flow.starts ? std::uint64_t{static_cast<std::uint32_t>(flow.receiver)} : flow.posted_ns,
         row.thread_id, name, called.kind, flow.starts ? MessageEnd::kSendEnd : receive_flags});
    took_on();
  }
  pending.clear();
  if (called.collective != CollectiveKind::kNone) {
    const bool rooted = called.collective == CollectiveKind::kOneToN ||
                        called.collective == CollectiveKind::kNToOne;
    collectives_.push_back({row.communicator, row.begin_ns, row.end_ns,
                            sequences_[row.communicator]++, rooted ? row.peer : -1, row.thread_id,
                            name, called.collective});
    took_on();
  }
}

WaitInputGatherer::Doings::Doings(const AlignedRank& rank, std::size_t budget)
    : rank_(rank),
      functions_(rank.reader()),
      function_names_(rank.reader().string_count(), -1),
      doings_(budget) {}

std::uint32_t WaitInputGatherer::Doings::intern(std::uint64_t key,
                                                const std::function<std::string()>& name) {
  const auto [entry, added] =
      name_keys_.try_emplace(key, static_cast<std::uint32_t>(names_.size()));
  if (added) names_.push_back(name());
  return entry->second;
}

std::uint32_t WaitInputGatherer::Doings::lane(std::uint64_t kind, std::uint64_t key) {
  const auto [entry, added] = lanes_.try_emplace(std::pair{kind, key}, lane_count_);
  if (added) ++lane_count_;
  return entry->second;
}

std::uint32_t WaitInputGatherer::Doings::thread_lane(std::uint32_t thread_id) {
  if (last_thread_lane_ == ~0U || thread_id != last_thread_) {
    last_thread_ = thread_id;
    last_thread_lane_ = lane(kThreadLane, thread_id);
  }
  return last_thread_lane_;
}

const OpNames& WaitInputGatherer::Doings::op_names() {
  if (!op_names_) op_names_.emplace(rank_.reader());
  return *op_names_;
}

void WaitInputGatherer::Doings::mpi_call(const format::MpiCallRow& row) {
  if (functions_.is_per_request_row(row)) return;
  if (row.function >= function_names_.size())
    function_names_.resize(std::size_t{row.function} + 1, -1);
  std::int32_t& name = function_names_[row.function];
  if (name < 0) {
    name = static_cast<std::int32_t>(names_.size());
    names_.push_back(rank_.reader().string(row.function));
  }
  doings_.add({row.begin_ns, row.end_ns, static_cast<std::uint32_t>(name),
               thread_lane(row.thread_id), DoingKind::kMpiCall});
}

void WaitInputGatherer::Doings::range(const Range& range) {
  if (!range.nested) return;  // start/stop ranges do not nest: not on a call path
  const std::uint32_t name =
      intern(kRegionName | range.name, [&] { return rank_.reader().string(range.name); });
  const std::uint64_t key = std::uint64_t{range.thread_id} << 32 | range.level;
  const std::uint32_t before = lane_count_;
  const std::uint32_t region_lane = lane(kRegionLane, key);
  if (lane_count_ != before) region_lanes_.push_back({region_lane, range.thread_id, range.level});
  doings_.add(Doing(range.begin_ns, range.end_ns, name, region_lane, DoingKind::kRegion));
}

void WaitInputGatherer::Doings::api_call(const format::ApiCallRow& row) {
  const std::uint32_t name = intern(kApiName | std::uint64_t{row.domain} << 32 | row.op,
                                    [&] { return op_names()(row.domain, row.op); });
  doings_.add({row.begin_ns, row.end_ns, name, thread_lane(row.thread_id), DoingKind::kApiCall});
}

void WaitInputGatherer::Doings::activity(const format::ActivityRow& row) {
  // The host waiting in its synchronising call is that call's doing, not GPU work in flight.
  if (is_host_wait(row)) return;
  const std::uint32_t name =
      row.kernel_name != 0
          ? intern(kKernelName | row.kernel_name,
                   [&] { return "kernel " + op_names().kernel_name(row); })
          : intern(kWorkName | std::uint64_t{row.domain} << 40 | std::uint64_t{row.op} << 32 |
                       (OpNames::is_named_copy(row) ? row.kind : 0),
                   [&] { return op_names().of_activity(row); });
  doings_.add(
      Doing(row.begin_ns, row.end_ns, name, lane(kQueueLane, row.queue_id), DoingKind::kGpuWork));
}

}  // namespace rocprof::merge
