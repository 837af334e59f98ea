#include "lib/core/pool.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include <unistd.h>

namespace rocprof::core {
namespace {
constexpr std::size_t kRecordSize = sizeof(activity_record_t);
static_assert(kRecordSize == 64, "activity_record_t must keep its 64-byte stride");

// How many empty chunks the pool thread keeps ready for each producer. A producer that
// finds its ring empty drops records, so the pool thread is woken before that happens.
constexpr std::uint32_t kSparesTarget = 6;
constexpr std::uint32_t kWakeWhenSparesAtMost = 3;
// The pool thread also wakes by itself this often, to deliver aged chunks.
constexpr auto kIdleWake = std::chrono::milliseconds(10);
// Memory a pool may hold in chunks before producers start dropping, unless
// ROCPROF_POOL_MAX_BYTES says otherwise (Pool::memory_limit_setting): an eighth of the memory
// this process may use (the node's, or its cgroup's when lower), shared by the ranks on the
// node, within these bounds. Records wait in memory rather than being dropped while the
// writer catches up; the budget only stops a runaway producer.
constexpr std::size_t kLeastChunkMemory = std::size_t{64} << 20;
constexpr std::size_t kMostChunkMemory = std::size_t{64} << 30;
constexpr std::size_t kMemoryShare = 8;

std::size_t usable_memory() {
  std::size_t memory = static_cast<std::size_t>(sysconf(_SC_PHYS_PAGES)) *
                       static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  // A job's memory limit (Slurm puts each job in a cgroup): cgroup v2, then v1.
  for (const char* path :
       {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream file(path);
    unsigned long long limit = 0;
    if (file >> limit && limit > 0 && limit < memory) memory = limit;
  }
  return memory;
}

std::size_t ranks_on_node() {
  // Open MPI, MPICH, Slurm: the first that says.
  for (const char* name :
       {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"}) {
    const char* text = std::getenv(name);  // NOLINT(concurrency-mt-unsafe): read-only
    if (text == nullptr) continue;
    const long value = std::strtol(text, nullptr, 10);
    if (value > 0) return static_cast<std::size_t>(value);
  }
  return 1;
}

std::size_t default_chunk_memory() {
  return std::clamp(usable_memory() / kMemoryShare / ranks_on_node(), kLeastChunkMemory,
                    kMostChunkMemory);
}

void default_allocator(char** ptr, std::size_t size, void* /*arg*/) {
  if (size == 0) {
    std::free(*ptr);
    *ptr = nullptr;
  } else {
    *ptr = static_cast<char*>(*ptr == nullptr ? std::malloc(size) : std::realloc(*ptr, size));
  }
}
}  // namespace

void Chunk::reset(std::uint64_t next_sequence, ProducerSlot* new_owner) noexcept {
  sequence = next_sequence;
  owner = new_owner;
}

bool SpareRing::push(Chunk* chunk) noexcept {
  const std::uint32_t tail = tail_.load(std::memory_order_relaxed);
  if (tail - head_.load(std::memory_order_acquire) == kCapacity) return false;
  items_[tail % kCapacity] = chunk;
  tail_.store(tail + 1, std::memory_order_release);  // publishes the item to the producer
  return true;
}

Chunk* SpareRing::pop() noexcept {
  const std::uint32_t head = head_.load(std::memory_order_relaxed);
  if (head == tail_.load(std::memory_order_acquire)) return nullptr;
  Chunk* chunk = items_[head % kCapacity];
  head_.store(head + 1, std::memory_order_release);  // hands the slot back to the pool thread
  return chunk;
}

std::uint32_t SpareRing::size() const noexcept {
  return tail_.load(std::memory_order_acquire) - head_.load(std::memory_order_acquire);
}

bool Pool::memory_limit_setting(std::size_t& bytes, std::string& error) {
  // Read when a pool opens, not on a hot path; nothing in the library calls setenv.
  const char* text = std::getenv("ROCPROF_POOL_MAX_BYTES");  // NOLINT(concurrency-mt-unsafe)
  if (text == nullptr) {
    bytes = default_chunk_memory();
    return true;
  }
  char* end = nullptr;
  errno = 0;
  unsigned long long value = std::strtoull(text, &end, 10);
  const bool digits = end != text && text[0] >= '0' && text[0] <= '9' && errno == 0;
  int shift = 0;
  if (digits && *end != '\0' && end[1] == '\0') {
    shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : -1;
    ++end;
  }
  if (!digits || *end != '\0' || shift < 0 || value == 0 || value > (~0ULL >> 30)) {
    error = std::string("ROCPROF_POOL_MAX_BYTES='") + text +
            "' is not a positive number of bytes (a suffix K, M or G allowed)";
    return false;
  }
  bytes = static_cast<std::size_t>(value << shift);
  return true;
}

Pool::Pool(const roctracer_properties_t& properties, std::uint32_t index, std::uint64_t uid,
           std::size_t memory_limit)
    : properties_(properties), index_(index), uid_(uid), owner_pid_(getpid()) {
  from_arena_ = properties_.alloc_fun == nullptr;
  if (properties_.alloc_fun == nullptr) properties_.alloc_fun = default_allocator;
  chunk_limit_ = std::max<std::size_t>(16, memory_limit / properties_.buffer_size);
}

Pool::~Pool() {
  for (ProducerSlot* slot : slots_) {
    if (slot->current != nullptr) free_chunk(slot->current);
    while (Chunk* spare = slot->spares.pop()) free_chunk(spare);
    delete slot;
  }
  for (Chunk* chunk : free_chunks_) free_chunk(chunk);
}

bool Pool::start() {
  try {
    thread_ = std::thread([this] { run(); });
  } catch (...) {
    return false;
  }
  return true;
}

// ---- producer side ----

ProducerSlot* Pool::register_producer(ThreadState& state) {
  // Cold path, once per thread and pool: the slot and its first chunks are made here so
  // the thread's first records are not dropped while the pool thread catches up.
  auto* slot = new (std::nothrow) ProducerSlot();
  if (slot == nullptr) return nullptr;
  slot->pool = this;
  {
    const std::lock_guard lock(slots_mutex_);
    for (std::uint32_t i = 0; i < 2; ++i) {
      Chunk* chunk = allocate_chunk(true);
      if (chunk == nullptr) break;
      slot->spares.push(chunk);
    }
    slots_.push_back(slot);
  }
  state.pool_slots[index_] = {uid_, slot};
  return slot;
}

void Pool::push_full(Chunk* chunk) noexcept {
  Chunk* head = full_head_.load(std::memory_order_relaxed);
  do {
    chunk->next_full = head;
    // Release: the pool thread must see the chunk's records once it pops the chunk.
  } while (!full_head_.compare_exchange_weak(head, chunk, std::memory_order_release,
                                             std::memory_order_relaxed));
}

void Pool::wake() noexcept {
  work_pending_.store(true, std::memory_order_relaxed);
  // Only a sleeping pool thread needs the futex; a lost wake-up costs at most kIdleWake.
  if (sleeping_.load(std::memory_order_relaxed)) wake_cv_.notify_one();
}

Chunk* Pool::rotate(ProducerSlot* slot) noexcept {
  if (slot->current != nullptr) push_full(slot->current);
  Chunk* next = slot->spares.pop();
  // A thread that outran the pool thread takes a fresh chunk itself rather than lose
  // records, up to the pool's memory limit. This is the slow path of a burst; steady-state
  // recording reuses chunks and allocates nothing.
  if (next == nullptr) next = allocate_chunk(false);
  if (next != nullptr) next->reset(slot->next_sequence++, slot);
  slot->current = next;
  // Release after push_full: a pool thread that sees the new chunk also sees the old one
  // in the queue, which keeps this thread's records in order during a flush.
  slot->published_current.store(next, std::memory_order_release);
  if (next == nullptr || slot->spares.size() <= kWakeWhenSparesAtMost) wake();
  return next;
}

void Pool::detach(ProducerSlot* slot) noexcept {
  if (slot->current != nullptr) push_full(slot->current);
  slot->current = nullptr;
  slot->published_current.store(nullptr, std::memory_order_release);
  slot->detached.store(true, std::memory_order_release);
  wake();
}

// ---- pool thread ----

Chunk* Pool::allocate_chunk(bool populate) {
  // Any thread: the count is atomic, and alloc_fun must be thread-safe (malloc is).
  if (allocated_chunks_.fetch_add(1, std::memory_order_relaxed) >= chunk_limit_) {
    allocated_chunks_.fetch_sub(1, std::memory_order_relaxed);
    return nullptr;
  }
  auto* chunk = new (std::nothrow) Chunk();
  char* data = nullptr;
  if (chunk != nullptr && from_arena_)
    data = arena_.take(properties_.buffer_size, populate);
  else if (chunk != nullptr)
    properties_.alloc_fun(&data, properties_.buffer_size, properties_.alloc_arg);
  if (data == nullptr) {
    delete chunk;
    allocated_chunks_.fetch_sub(1, std::memory_order_relaxed);
    return nullptr;
  }
  chunk->data = data;
  chunk->capacity_bytes = static_cast<std::uint32_t>(properties_.buffer_size);
  chunk->string_offset = chunk->capacity_bytes;
  return chunk;
}

void Pool::free_chunk(Chunk* chunk) const {
  // Arena memory goes with the arena, when the pool does.
  if (!from_arena_) properties_.alloc_fun(&chunk->data, 0, properties_.alloc_arg);
  delete chunk;
}

void Pool::deliver(Chunk* chunk, std::uint32_t upto) {
  if (upto <= chunk->delivered) return;
  const char* begin = chunk->data + chunk->delivered * kRecordSize;
  const char* end = chunk->data + upto * kRecordSize;
  properties_.buffer_callback_fun(begin, end, properties_.buffer_callback_arg);
  delivered_records_.fetch_add(upto - chunk->delivered, std::memory_order_relaxed);
  chunk->delivered = upto;
}

void Pool::finish_sealed(Chunk* chunk) {
  // Sealed: the producer will not touch it again, so the committed count is final.
  deliver(chunk, chunk->committed.load(std::memory_order_acquire));
  chunk->owner->consumed_sequence = chunk->sequence + 1;
  chunk->records = 0;
  chunk->string_offset = chunk->capacity_bytes;
  chunk->delivered = 0;
  chunk->committed.store(0, std::memory_order_relaxed);
  chunk->owner = nullptr;
  free_chunks_.push_back(chunk);
}

void Pool::drain_full_queue() {
  Chunk* list = full_head_.exchange(nullptr, std::memory_order_acquire);
  // The stack is newest-first; reverse it so each thread's chunks go out in order.
  Chunk* ordered = nullptr;
  while (list != nullptr) {
    Chunk* next = list->next_full;
    list->next_full = ordered;
    ordered = list;
    list = next;
  }
  while (ordered != nullptr) {
    Chunk* next = ordered->next_full;
    finish_sealed(ordered);
    ordered = next;
  }
}

void Pool::deliver_partials() {
  std::vector<ProducerSlot*> slots;
  {
    const std::lock_guard lock(slots_mutex_);
    slots = slots_;
  }
  drain_full_queue();
  for (ProducerSlot* slot : slots) {
    Chunk* chunk = slot->published_current.load(std::memory_order_acquire);
    if (chunk == nullptr) continue;
    // Older sealed chunks of this thread must go first; they are already in the queue.
    if (chunk->sequence > slot->consumed_sequence) drain_full_queue();
    // The drain may have finished this very chunk (sealed after we loaded it).
    if (chunk->sequence < slot->consumed_sequence) continue;
    deliver(chunk, chunk->committed.load(std::memory_order_acquire));
  }
}

void Pool::refill_spares() {
  const std::lock_guard lock(slots_mutex_);
  for (ProducerSlot* slot : slots_) {
    if (slot->detached.load(std::memory_order_acquire)) continue;
    // Topped up once per round: a producer that takes chunks as fast as they come would
    // otherwise keep this thread here, making chunks (slow while memory is first touched)
    // instead of delivering full ones.
    const std::uint32_t held = slot->spares.size();
    for (std::uint32_t need = held < kSparesTarget ? kSparesTarget - held : 0; need > 0; --need) {
      Chunk* chunk = nullptr;
      if (!free_chunks_.empty()) {
        chunk = free_chunks_.back();
        free_chunks_.pop_back();
      } else {
        chunk = allocate_chunk(true);  // the pool thread faults it in, not the producer
      }
      if (chunk == nullptr) return;
      if (!slot->spares.push(chunk)) {
        free_chunks_.push_back(chunk);
        break;
      }
    }
  }
}

void Pool::reap_detached() {
  const std::lock_guard lock(slots_mutex_);
  for (auto it = slots_.begin(); it != slots_.end();) {
    ProducerSlot* slot = *it;
    if (!slot->detached.load(std::memory_order_acquire)) {
      ++it;
      continue;
    }
    // The exiting thread queued its last chunk before setting `detached`; finish it now,
    // while the slot that chunk points to still exists.
    drain_full_queue();
    while (Chunk* spare = slot->spares.pop()) free_chunks_.push_back(spare);
    reaped_dropped_.fetch_add(slot->dropped.load(std::memory_order_relaxed),
                              std::memory_order_relaxed);
    delete slot;
    it = slots_.erase(it);
  }
}

void Pool::run() {
  this_thread_state().is_pool_thread = true;
  for (;;) {
    std::uint64_t flush_target = 0;
    bool stopping = false;
    {
      std::unique_lock lock(wake_mutex_);
      if (!stop_requested_ && flush_requested_ == flush_completed_ &&
          !work_pending_.load(std::memory_order_relaxed)) {
        sleeping_.store(true, std::memory_order_relaxed);
        wake_cv_.wait_for(lock, kIdleWake);
        sleeping_.store(false, std::memory_order_relaxed);
      }
      flush_target = flush_requested_;
      stopping = stop_requested_;
    }
    work_pending_.store(false, std::memory_order_relaxed);
    drain_full_queue();
    reap_detached();
    refill_spares();
    if (flush_target != flush_completed_ || stopping) {
      deliver_partials();
      const std::lock_guard lock(wake_mutex_);
      flush_completed_ = flush_target;
      flush_cv_.notify_all();
    }
    if (stopping) return;
  }
}

void Pool::flush() {
  if (getpid() != owner_pid_) return;
  if (std::this_thread::get_id() == thread_.get_id()) {
    deliver_partials();  // called from our own buffer callback
    return;
  }
  std::unique_lock lock(wake_mutex_);
  const std::uint64_t ticket = ++flush_requested_;
  wake_cv_.notify_one();
  flush_cv_.wait(lock, [&] { return flush_completed_ >= ticket; });
}

void Pool::shutdown() {
  if (getpid() != owner_pid_) return;  // no pool thread here to stop
  {
    const std::lock_guard lock(wake_mutex_);
    stop_requested_ = true;
  }
  wake_cv_.notify_one();
  if (thread_.joinable()) thread_.join();
}

std::uint64_t Pool::dropped_records() const noexcept {
  const std::lock_guard lock(slots_mutex_);
  std::uint64_t total = reaped_dropped_.load(std::memory_order_relaxed);
  for (const ProducerSlot* slot : slots_) total += slot->dropped.load(std::memory_order_relaxed);
  return total;
}

}  // namespace rocprof::core
