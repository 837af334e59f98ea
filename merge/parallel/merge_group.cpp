#include "merge/parallel/merge_group.hpp"

#include <mpi.h>
#include <otf2/OTF2_MPI_Collectives.h>
#include <otf2/otf2.h>

#include <sched.h>
#include <unistd.h>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "merge/files/part_copy.hpp"
#include "merge/parallel/process_manager_link.hpp"

namespace rocprof::merge {
namespace {

constexpr int kStreamTag = 4711;  // messages to the first process
constexpr int kGatherTag = 4712;  // gather_to_leader
constexpr int kAllToAllTag = 4713;

// The processes that merge: every launched one until those left out go (MergeGroup::narrow).
// One group per process, as MPI's own world is.
MPI_Comm merging = MPI_COMM_WORLD;  // NOLINT(cppcoreguidelines-avoid-non-const-global-variables)
MPI_Comm comm() { return merging; }

bool launched_as_mpi_job() {
  // Read once at start; nothing here calls setenv.
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"})
    if (std::getenv(name) != nullptr) return true;  // NOLINT(concurrency-mt-unsafe)
  return false;
}

std::string_view send_thread_setting() {
  const char* setting = std::getenv("ROCPROF_MERGE_SEND_THREAD");  // NOLINT(concurrency-mt-unsafe)
  return setting == nullptr ? "" : setting;
}

// A whole number from the environment, nullopt if unset or not one.
std::optional<std::size_t> environment_count(const char* name) {
  const char* text = std::getenv(name);  // NOLINT(concurrency-mt-unsafe)
  if (text == nullptr || *text == '\0') return std::nullopt;
  std::size_t value = 0;
  const auto [end, error] = std::from_chars(text, text + std::strlen(text), value);
  if (error != std::errc() || *end != '\0') return std::nullopt;
  return value;
}

// Waits for `request` without keeping a CPU busy: a blocking MPI call spins (Open MPI polls
// its shared-memory queues), taking a core from the process's helper threads, or the other
// processes', for as long as the wait lasts (the first process's matching, say).
void wait_idle(MPI_Request& request) {
  auto pause = std::chrono::microseconds(20);
  constexpr auto kLongest = std::chrono::milliseconds(1);
  int done = 0;
  while (MPI_Test(&request, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && done == 0) {
    std::this_thread::sleep_for(pause);
    pause = std::min<std::chrono::microseconds>(pause * 2, kLongest);
  }
}

}  // namespace

std::optional<LaunchPlace> launch_place_from_environment() {
  for (const auto& [rank, size] : {std::pair{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
                                   std::pair{"PMIX_RANK", "SLURM_STEP_NUM_TASKS"}}) {
    const auto index = environment_count(rank);
    const auto processes = environment_count(size);
    if (index && processes && *index < *processes) {
      const auto on_node = environment_count("OMPI_COMM_WORLD_LOCAL_SIZE");
      const auto nodes = environment_count("SLURM_STEP_NUM_NODES");
      return LaunchPlace{*index, *processes, on_node && *on_node > 0 ? *on_node : 1,
                         (on_node && *on_node == *processes) || (nodes && *nodes == 1)};
    }
  }
  return std::nullopt;
}

std::string send_thread_setting_problem() {
  const std::string_view setting = send_thread_setting();
  if (setting.empty() || setting == "auto" || setting == "off") return {};
  return fmt::format("ROCPROF_MERGE_SEND_THREAD is '{}': use auto (the default) or off", setting);
}

// Messages to the first process. Open MPI moves a large message over shared memory only
// while both processes are inside MPI, and this process's main thread enters MPI only between
// chunks: with MPI_THREAD_MULTIPLE a thread of its own sends them, so a message moves as soon
// as the first process takes it. Otherwise a few non-blocking sends are kept in flight.
struct MergeGroup::Sends {
  static constexpr std::size_t kQueued = 8;  // messages held at most: bounds the memory
  // The sending thread's queue (MPI_THREAD_MULTIPLE).
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<std::vector<std::byte>> queue;  // the front is being sent
  bool closing = false;
  std::thread thread;
  // Otherwise: requests in flight.
  struct Pending {
    MPI_Request request;
    std::vector<std::byte> bytes;
  };
  std::deque<Pending> pending;

  void send_all() {
    std::unique_lock lock(mutex);
    while (true) {
      changed.wait(lock, [this] { return closing || !queue.empty(); });
      if (queue.empty()) return;
      std::vector<std::byte>& front = queue.front();
      lock.unlock();
      // Polled, yielding the CPU between polls: a blocking send would spin on a core the merge's
      // own threads may need while the first process is busy elsewhere.
      MPI_Request request = MPI_REQUEST_NULL;
      MPI_Isend(front.data(), static_cast<int>(front.size()), MPI_BYTE, 0, kStreamTag, comm(),
                &request);
      int sent = 0;
      while (MPI_Test(&request, &sent, MPI_STATUS_IGNORE) == MPI_SUCCESS && sent == 0)
        sched_yield();
      lock.lock();
      queue.pop_front();
      changed.notify_all();
    }
  }
};

MergeGroup::MergeGroup(int* argc, char*** argv) {
  if (!launched_as_mpi_job()) return;
  // ROCPROF_MERGE_SEND_THREAD=auto|off: off keeps MPI to the main thread, for an MPI whose
  // MPI_THREAD_MULTIPLE is slow or unsound. Read before MPI_Init, which it decides.
  // A misspelt setting is told by the pipeline (merge_settings_from_environment), and every
  // process stops before any work; meanwhile it counts as auto.
  const bool send_thread_off =
      send_thread_setting_problem().empty() && send_thread_setting() == "off";
  const int wanted = send_thread_off ? MPI_THREAD_SINGLE : MPI_THREAD_MULTIPLE;
  const auto started = std::chrono::steady_clock::now();
  int initialized = 0;
  MPI_Initialized(&initialized);
  int provided = MPI_THREAD_SINGLE;
  if (initialized == 0) {
    if (MPI_Init_thread(argc, argv, wanted, &provided) != MPI_SUCCESS) return;
  } else {
    MPI_Query_thread(&provided);
  }
  mpi_ = true;
  // MPI_Finalize's last messages to mpirun's daemon went late over its TCP link
  // (merge/parallel/process_manager_link.hpp).
  send_without_delay_to_process_manager();
  sending_thread_ = wanted == MPI_THREAD_MULTIPLE && provided >= MPI_THREAD_MULTIPLE;
  any_thread_ = provided >= MPI_THREAD_SERIALIZED;
  MPI_Comm_rank(MPI_COMM_WORLD, &index_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm node = MPI_COMM_NULL;
  node_ = index_;
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, index_, MPI_INFO_NULL, &node) ==
          MPI_SUCCESS &&
      node != MPI_COMM_NULL) {
    MPI_Comm_size(node, &on_node_);
    MPI_Comm_rank(node, &node_place_);
    MPI_Allreduce(&index_, &node_, 1, MPI_INT, MPI_MIN, node);
    MPI_Comm_free(&node);
  }
  launched_ = size_;
  active_place_ = index_;
  active_count_ = size_;
  start_seconds_ =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

MergeGroup::~MergeGroup() {
  if (!mpi_) return;
  finish_sends();
  if (merging != MPI_COMM_WORLD && merging != MPI_COMM_NULL) MPI_Comm_free(&merging);
  MPI_Finalize();
}

int MergeGroup::choose_active(std::uint64_t records, const MergingLimits& limits) {
  if (!mpi_ || size_ == 1) return size_;
  // Each process's node, place there and CPU mask, seen by all: every one computes the same.
  struct Where {
    std::int32_t node;
    std::int32_t place;
    cpu_set_t cpus;
  };
  Where here{node_, node_place_, {}};
  CPU_ZERO(&here.cpus);
  if (::sched_getaffinity(0, sizeof here.cpus, &here.cpus) != 0) CPU_SET(0, &here.cpus);
  const auto* bytes = reinterpret_cast<const std::byte*>(&here);
  std::vector<Where> everywhere;
  for (const std::vector<std::byte>& process :
       all_gather(std::vector<std::byte>(bytes, bytes + sizeof here))) {
    if (process.size() != sizeof(Where)) throw std::logic_error("a process's place is garbled");
    Where where{};
    std::memcpy(&where, process.data(), sizeof where);
    everywhere.push_back(where);
  }
  std::map<std::int32_t, cpu_set_t> node_cpus;
  for (const Where& where : everywhere) {
    auto [entry, added] = node_cpus.try_emplace(where.node, where.cpus);
    if (!added) CPU_OR(&entry->second, &entry->second, &where.cpus);
  }
  std::vector<ProcessPlace> places;
  places.reserve(everywhere.size());
  for (const Where& where : everywhere)
    places.push_back({static_cast<std::uint32_t>(where.node),
                      static_cast<std::uint32_t>(where.place),
                      static_cast<std::uint32_t>(CPU_COUNT(&where.cpus)),
                      static_cast<std::uint32_t>(CPU_COUNT(&node_cpus[where.node]))});
  const std::vector<std::size_t> active = active_processes(places, records, limits);
  active_ = active;
  active_count_ = static_cast<int>(active.size());
  const auto mine = std::find(active.begin(), active.end(), static_cast<std::size_t>(index_));
  active_place_ = static_cast<int>(mine - active.begin());
  // The merging processes share the node's CPUs (cpus_per_process).
  on_node_ = static_cast<int>(std::count_if(
      active.begin(), active.end(), [&](std::size_t i) { return everywhere[i].node == node_; }));
  return active_count_;
}

std::vector<int> MergeGroup::merging_places() const {
  std::vector<int> places(static_cast<std::size_t>(launched_), -1);
  if (active_count_ == launched_ || active_.empty()) {  // every process merges, in its place
    for (std::size_t i = 0; i < places.size(); ++i) places[i] = static_cast<int>(i);
    return places;
  }
  for (std::size_t place = 0; place < active_.size(); ++place)
    places.at(active_[place]) = static_cast<int>(place);
  return places;
}

void MergeGroup::release_left_out() const {
  if (!mpi_ || active_count_ == launched_) return;
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibarrier(MPI_COMM_WORLD, &request);
  wait_idle(request);
}

bool MergeGroup::narrow() {
  if (!mpi_ || active_count_ == size_) return true;
  const bool merges = active_place_ < active_count_;
  MPI_Comm next = MPI_COMM_NULL;
  MPI_Comm_split(comm(), merges ? 0 : MPI_UNDEFINED, index_, &next);
  if (!merges) return false;
  merging = next;
  index_ = active_place_;
  size_ = active_count_;
  return true;
}

std::pair<std::size_t, std::size_t> block_of(std::size_t count, std::size_t index,
                                             std::size_t processes) noexcept {
  const std::size_t base = count / processes;
  const std::size_t extra = count % processes;
  const std::size_t first = index * base + std::min(index, extra);
  return {first, first + base + (index < extra ? 1 : 0)};
}

std::pair<std::size_t, std::size_t> weighted_block(const std::vector<std::uint64_t>& weights,
                                                   std::size_t index, std::size_t processes,
                                                   double first_share) noexcept {
  const std::size_t count = weights.size();
  if (processes == 0 || index >= processes) return {count, count};
  if (count <= processes)  // one item each, then empty blocks
    return {std::min(index, count), std::min(index + 1, count)};
  // Each item weighs one more than said: empty ranks still cost something, and all-zero
  // weights cut as block_of does.
  std::uint64_t total = 0;
  for (const std::uint64_t weight : weights) total += weight + 1;
  // Where cut k goes (k = 1 .. processes - 1): after the item at which the weight so far
  // comes nearest to the first k shares of the total, at least one item past cut k - 1 and
  // leaving one for each block after it.
  const long double leading = std::clamp(static_cast<long double>(first_share), 0.0L, 1.0L);
  const long double shares = leading + static_cast<long double>(processes - 1);
  auto cut = [&](std::size_t k, std::size_t after) {
    const long double target =
        static_cast<long double>(total) * (leading + static_cast<long double>(k - 1)) / shares;
    std::uint64_t before = 0;
    std::size_t i = 0;
    for (; i < count; ++i) {
      const std::uint64_t next = before + weights[i] + 1;
      if (static_cast<long double>(next) >= target) {
        // Cut before item i or after it, whichever is nearer the target.
        const bool after_it =
            static_cast<long double>(next) - target <= target - static_cast<long double>(before);
        i += after_it ? 1 : 0;
        break;
      }
      before = next;
    }
    return std::clamp(i, after + 1, count - (processes - k));
  };
  std::size_t first = 0;
  for (std::size_t k = 1; k <= index; ++k) first = cut(k, first);
  const std::size_t last = index + 1 == processes ? count : cut(index + 1, first);
  return {first, last};
}

std::pair<std::size_t, std::size_t> MergeGroup::block(
    const std::vector<std::uint64_t>& weights) const noexcept {
  return weighted_block(weights, static_cast<std::size_t>(active_place_),
                        static_cast<std::size_t>(active_count_), first_share_);
}

MergeShare MergeGroup::share(const std::vector<std::uint64_t>& weights) {
  MergeShare share;
  std::tie(share.first_rank, share.last_rank) = block(weights);
  share.index = static_cast<std::size_t>(index_);
  share.processes = size_;
  share.send_to_leader = [this](const std::vector<std::byte>& message) { send_to_leader(message); };
  share.receive = [this](std::vector<std::byte>& message, bool wait) {
    return receive(message, wait);
  };
  share.gather = [this](std::uint64_t value) { return all_gather(value); };
  share.all_gather = [this](const std::vector<std::byte>& bytes) { return all_gather(bytes); };
  share.barrier = [this] { barrier(); };
  share.set_otf2_collectives = [this](OTF2_Archive_struct* archive) {
    set_otf2_collectives(archive);
  };
  return share;
}

std::vector<std::vector<std::byte>> MergeGroup::all_gather(
    const std::vector<std::byte>& mine) const {
  if (!mpi_ || size_ == 1) return {mine};
  // The sizes first, in 64 bits: every process sees them all, so that all refuse together an
  // exchange MPI's int counts and offsets cannot describe (none is left waiting).
  const std::vector<std::uint64_t> sizes = all_gather(static_cast<std::uint64_t>(mine.size()));
  std::uint64_t total = 0;
  for (const std::uint64_t size : sizes) total += size;
  if (total > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
    throw std::runtime_error("the merge processes' exchange is over 2 GiB");
  std::vector<int> counts;
  std::vector<int> offsets;
  for (const std::uint64_t size : sizes) {
    offsets.push_back(counts.empty() ? 0 : offsets.back() + counts.back());
    counts.push_back(static_cast<int>(size));
  }
  std::vector<std::byte> all(total);
  MPI_Allgatherv(mine.data(), static_cast<int>(mine.size()), MPI_BYTE, all.data(), counts.data(),
                 offsets.data(), MPI_BYTE, comm());
  std::vector<std::vector<std::byte>> parts;
  for (std::size_t i = 0; i < counts.size(); ++i)
    parts.emplace_back(all.begin() + offsets[i], all.begin() + offsets[i] + counts[i]);
  return parts;
}

void MergeGroup::gather_to_leader(
    const std::vector<std::byte>& mine,
    const std::function<void(const std::vector<std::byte>&)>& take) const {
  if (!mpi_ || size_ == 1) {
    take(mine);
    return;
  }
  // The size, then the bytes in pieces MPI's int counts can describe: no size is refused.
  constexpr std::size_t kPiece = std::size_t{1} << 30;
  if (!leader()) {
    auto size = static_cast<std::uint64_t>(mine.size());
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Isend(&size, 1, MPI_UINT64_T, 0, kGatherTag, comm(), &request);
    wait_idle(request);
    for (std::size_t at = 0; at < mine.size(); at += kPiece) {
      MPI_Isend(mine.data() + at, static_cast<int>(std::min(kPiece, mine.size() - at)), MPI_BYTE, 0,
                kGatherTag, comm(), &request);
      wait_idle(request);
    }
    return;
  }
  take(mine);
  std::vector<std::byte> part;
  for (int from = 1; from < size_; ++from) {
    std::uint64_t size = 0;
    MPI_Recv(&size, 1, MPI_UINT64_T, from, kGatherTag, comm(), MPI_STATUS_IGNORE);
    part.resize(size);
    for (std::size_t at = 0; at < part.size(); at += kPiece)
      MPI_Recv(part.data() + at, static_cast<int>(std::min(kPiece, part.size() - at)), MPI_BYTE,
               from, kGatherTag, comm(), MPI_STATUS_IGNORE);
    take(part);
  }
}

void MergeGroup::broadcast(std::vector<std::byte>& bytes) const {
  if (!mpi_ || size_ == 1) return;
  auto size = static_cast<std::uint64_t>(bytes.size());
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibcast(&size, 1, MPI_UINT64_T, 0, comm(), &request);
  wait_idle(request);
  bytes.resize(size);
  MPI_Ibcast(bytes.data(), static_cast<int>(size), MPI_BYTE, 0, comm(), &request);
  wait_idle(request);
}

std::vector<std::vector<std::byte>> MergeGroup::all_to_all(
    std::vector<std::vector<std::byte>> parts) const {
  const auto processes = static_cast<std::size_t>(size_);
  if (parts.size() != processes) throw std::logic_error("all_to_all needs a part per process");
  if (!mpi_ || size_ == 1) return parts;
  std::vector<std::uint64_t> sizes(processes);
  std::vector<std::uint64_t> incoming(processes);
  for (std::size_t p = 0; p < processes; ++p) sizes[p] = parts[p].size();
  MPI_Alltoall(sizes.data(), 1, MPI_UINT64_T, incoming.data(), 1, MPI_UINT64_T, comm());
  // Straight from each part into the vector it arrives in, a message per peer (pieces of at
  // most kAllToAllPieceBytes, which MPI's int counts describe): staging every part through
  // one send buffer and every arrival through one receive buffer copied all the bytes twice
  // more, on the one thread that exchanges for the process.
  const auto me = static_cast<std::size_t>(index_);
  std::vector<std::vector<std::byte>> received(processes);
  received[me] = std::move(parts[me]);
  std::vector<MPI_Request> requests;
  const auto pieces = [&](std::vector<std::byte>& bytes, std::size_t peer, bool send) {
    for (std::size_t at = 0; at < bytes.size(); at += kAllToAllPieceBytes) {
      const int count =
          static_cast<int>(std::min<std::size_t>(kAllToAllPieceBytes, bytes.size() - at));
      MPI_Request& request = requests.emplace_back(MPI_REQUEST_NULL);
      if (send)
        MPI_Isend(bytes.data() + at, count, MPI_BYTE, static_cast<int>(peer), kAllToAllTag, comm(),
                  &request);
      else
        MPI_Irecv(bytes.data() + at, count, MPI_BYTE, static_cast<int>(peer), kAllToAllTag, comm(),
                  &request);
    }
  };
  for (std::size_t p = 0; p < processes; ++p)
    if (p != me) {
      received[p].resize(incoming[p]);
      pieces(received[p], p, false);
    }
  // Each process sends to the one after it first, so that not all send to the first at once.
  for (std::size_t step = 1; step < processes; ++step) {
    const std::size_t to = (me + step) % processes;
    pieces(parts[to], to, true);
  }
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  return received;
}

std::vector<std::uint64_t> MergeGroup::all_gather(std::uint64_t value) const {
  if (!mpi_) return {value};
  std::vector<std::uint64_t> values(static_cast<std::size_t>(size_));
  MPI_Allgather(&value, 1, MPI_UINT64_T, values.data(), 1, MPI_UINT64_T, comm());
  return values;
}

void MergeGroup::send_to_leader(const std::vector<std::byte>& message) {
  if (!mpi_) throw std::logic_error("a merge of one process sends nothing");
  if (message.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw std::runtime_error("a message for the first merge process is over 2 GiB");
  if (!sends_) sends_ = std::make_unique<Sends>();
  Sends& sends = *sends_;
  if (sending_thread_) {
    if (!sends.thread.joinable()) sends.thread = std::thread([&sends] { sends.send_all(); });
    std::unique_lock lock(sends.mutex);
    sends.changed.wait(lock, [&sends] { return sends.queue.size() < Sends::kQueued; });
    sends.queue.push_back(message);
    sends.changed.notify_all();
    return;
  }
  std::deque<Sends::Pending>& pending = sends.pending;
  while (pending.size() >= Sends::kQueued) {
    MPI_Wait(&pending.front().request, MPI_STATUS_IGNORE);
    pending.pop_front();
  }
  Sends::Pending& send = pending.emplace_back(Sends::Pending{MPI_REQUEST_NULL, message});
  MPI_Isend(send.bytes.data(), static_cast<int>(send.bytes.size()), MPI_BYTE, 0, kStreamTag, comm(),
            &send.request);
}

void MergeGroup::finish_sends() {
  if (!sends_) return;
  if (sends_->thread.joinable()) {
    {
      const std::lock_guard lock(sends_->mutex);
      sends_->closing = true;
    }
    sends_->changed.notify_all();
    sends_->thread.join();
    sends_->closing = false;  // a later send starts a thread again
    sends_->thread = std::thread();
  }
  for (Sends::Pending& send : sends_->pending) MPI_Wait(&send.request, MPI_STATUS_IGNORE);
  sends_->pending.clear();
}

bool MergeGroup::receive(std::vector<std::byte>& message, bool wait) const {
  if (!mpi_) return false;
  MPI_Status status;
  if (wait) {
    MPI_Probe(MPI_ANY_SOURCE, kStreamTag, comm(), &status);
  } else {
    int waiting = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, kStreamTag, comm(), &waiting, &status);
    if (waiting == 0) return false;
  }
  int bytes = 0;
  MPI_Get_count(&status, MPI_BYTE, &bytes);
  message.resize(static_cast<std::size_t>(bytes));
  MPI_Recv(message.data(), bytes, MPI_BYTE, status.MPI_SOURCE, kStreamTag, comm(),
           MPI_STATUS_IGNORE);
  return true;
}

void MergeGroup::set_otf2_collectives(OTF2_Archive_struct* archive) const {
  const OTF2_ErrorCode code =
      mpi_ ? OTF2_MPI_Archive_SetCollectiveCallbacks(archive, comm(), MPI_COMM_NULL)
           : OTF2_Archive_SetSerialCollectiveCallbacks(archive);
  if (code != OTF2_SUCCESS)
    throw std::runtime_error(
        fmt::format("cannot set OTF2's collective callbacks: {}", OTF2_Error_GetDescription(code)));
}

void MergeGroup::abort(int code) const {
  // The sending thread may be inside MPI_Send: MPI_Abort ends it with the process.
  if (sends_ && sends_->thread.joinable()) sends_->thread.detach();
  if (mpi_) MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);  // NOLINT(concurrency-mt-unsafe): a single-threaded tool, ending
}

void MergeGroup::barrier() const {
  if (mpi_) MPI_Barrier(comm());
}

std::uint64_t MergeGroup::sum(std::uint64_t value) const {
  if (!mpi_) return value;
  std::uint64_t total = 0;
  MPI_Allreduce(&value, &total, 1, MPI_UINT64_T, MPI_SUM, comm());
  return total;
}

bool MergeGroup::any(bool failed) const {
  if (!mpi_) return failed;
  int local = failed ? 1 : 0;
  int global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_MAX, comm());
  return global != 0;
}

int MergeGroup::first_failed(bool failed) const {
  if (!mpi_) return failed ? 0 : -1;
  // The lowest failed index: processes that did not fail offer one past the last.
  int mine = failed ? index_ : size_;
  int first = size_;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm());
  return first == size_ ? -1 : first;
}

std::string part_path(const std::string& output, int index, const std::string& scratch) {
  if (index == 0) return output;
  if (scratch.empty()) return fmt::format("{}.part{}", output, index);
  return (std::filesystem::path(scratch) /
          fmt::format("{}.part{}.{}", std::filesystem::path(output).filename().string(), index,
                      ::getpid()))
      .string();
}

namespace {

// This process's share of the copying: the bytes of parts 1.. (part 0 is the output), taken
// as one run and cut into equal shares, one per process; or, with parts in each node's
// scratch, this process's own part.
std::string copy_share(const MergeGroup& group, const std::string& output,
                       const std::vector<std::uint64_t>& sizes, std::size_t copy_threads,
                       const std::string& scratch) {
  const auto index = static_cast<std::size_t>(group.index());
  std::vector<CopyPiece> parts;
  std::uint64_t offset = sizes[0];  // where part i goes in the output
  for (std::size_t i = 1; i < sizes.size(); ++i) {
    if (scratch.empty() || i == index)
      parts.push_back({part_path(output, static_cast<int>(i), scratch), 0, offset, sizes[i]});
    offset += sizes[i];
  }
  PartCopyOptions options;
  options.threads = copy_threads;
  // Every process copies its share at once: one thread each still makes many writers.
  options.other_writers = static_cast<std::size_t>(group.size()) - 1;
  if (!scratch.empty()) return copy_pieces(output, parts, options);
  return copy_pieces(output, equal_share(parts, index, static_cast<std::size_t>(group.size())),
                     options);
}

}  // namespace

bool join_parts(const MergeGroup& group, const std::string& output, std::size_t copy_threads,
                const std::string& scratch) {
  const std::string part = part_path(output, group.index(), scratch);
  std::string problem;
  std::error_code code;
  const std::uint64_t size = std::filesystem::file_size(part, code);
  if (code) problem = fmt::format("cannot read {}: {}", part, code.message());
  const std::vector<std::uint64_t> sizes = group.all_gather(code ? 0 : size);
  std::uint64_t total = 0;
  for (const std::uint64_t each : sizes) total += each;
  // The first process wrote its part as the output: it grows it to its full size first, so
  // that every process can write its share at once.
  if (group.leader() && problem.empty() &&
      ::truncate(output.c_str(), static_cast<off_t>(total)) != 0)
    problem = fmt::format("cannot write {}: {}", output, std::generic_category().message(errno));
  if (!group.any(!problem.empty()))
    problem = copy_share(group, output, sizes, copy_threads, scratch);
  // Every share is copied (or failed) before a part goes.
  const bool failed = group.any(!problem.empty());
  if (!group.leader()) std::remove(part.c_str());
  if (!problem.empty()) fmt::print(stderr, "rocprof-merge: {}\n", problem);
  return !failed;
}

}  // namespace rocprof::merge
