// An activity pool: per-thread chunks filled lock-free by application threads and delivered
// in order to the user's buffer callback by the pool's own thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <roctracer/roctracer.h>

#include "lib/core/chunk_arena.hpp"
#include "lib/core/thread_state.hpp"

namespace rocprof::core {

class Pool;

// One buffer of `buffer_size` bytes: records grow up from the start, copied strings grow
// down from the end, so a delivered buffer is exactly [begin, end) of fixed-stride records.
struct Chunk {
  char* data = nullptr;
  std::uint32_t capacity_bytes = 0;
  std::uint64_t sequence = 0;  // per producer slot, tells the pool thread the order
  Chunk* next_full = nullptr;  // link in the pool's queue of sealed chunks
  ProducerSlot* owner = nullptr;
  // Producer side.
  std::uint32_t records = 0;        // records written
  std::uint32_t string_offset = 0;  // start of the lowest copied string
  // Published record count: release-stored after each write, read by the pool thread.
  std::atomic<std::uint32_t> committed{0};
  // Pool-thread side: records already handed to the buffer callback.
  std::uint32_t delivered = 0;

  void reset(std::uint64_t next_sequence, ProducerSlot* new_owner) noexcept;
};

// A fixed ring the pool thread fills with empty chunks and one producer takes from.
class SpareRing {
 public:
  static constexpr std::uint32_t kCapacity = 8;
  bool push(Chunk* chunk) noexcept;  // pool thread only
  Chunk* pop() noexcept;             // producer only
  std::uint32_t size() const noexcept;

 private:
  Chunk* items_[kCapacity] = {};
  std::atomic<std::uint32_t> head_{0};  // next to pop (producer)
  std::atomic<std::uint32_t> tail_{0};  // next to push (pool thread)
};

// What one thread owns inside one pool.
class ProducerSlot {
 public:
  Pool* pool = nullptr;
  Chunk* current = nullptr;                        // producer-owned
  std::atomic<Chunk*> published_current{nullptr};  // read by the pool thread on flush
  SpareRing spares;
  std::uint64_t next_sequence = 0;      // producer-owned
  std::uint64_t consumed_sequence = 0;  // pool-thread-owned: sealed chunks finished
  std::atomic<std::uint64_t> dropped{0};
  std::atomic<bool> detached{false};  // the thread has exited
};

class Pool {
 public:
  // Validated properties; buffer_size already rounded. Producers drop records once the
  // pool's chunks take `memory_limit` bytes (memory_limit_setting).
  Pool(const roctracer_properties_t& properties, std::uint32_t index, std::uint64_t uid,
       std::size_t memory_limit);
  ~Pool();
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  // Starts the pool thread; false if it could not be created.
  bool start();

  // Space for `count` consecutive records and a `message_bytes` string in the calling
  // thread's chunk. Filled in place by the caller, then made visible with publish().
  struct Reservation {
    activity_record_t* records;
    char* message;
    Chunk* chunk;
  };

  // Hot path: no lock, no system call; returns false and counts the records as dropped when
  // no chunk space can be had. Must run inside enter/leave_hot_path.
  bool reserve(ThreadState& state, std::uint32_t count, std::size_t message_bytes,
               Reservation& out) noexcept {
    const auto& ref = state.pool_slots[index_];
    ProducerSlot* slot = ref.pool_uid == uid_ ? ref.slot : register_producer(state);
    if (slot == nullptr) [[unlikely]]
      return false;
    Chunk* chunk = slot->current;
    const std::size_t need = message_bytes + std::size_t{count} * sizeof(activity_record_t);
    if (chunk == nullptr ||
        chunk->records * sizeof(activity_record_t) + need > chunk->string_offset) [[unlikely]] {
      // A forked child has no pool thread to take full chunks: it fills the chunk it
      // inherited, then drops and counts, rather than grow without bound.
      chunk = state.pid == static_cast<std::uint32_t>(owner_pid_) ? rotate(slot) : nullptr;
      if (chunk == nullptr) {
        slot->dropped.fetch_add(count, std::memory_order_relaxed);
        return false;
      }
    }
    out.records = reinterpret_cast<activity_record_t*>(chunk->data) + chunk->records;
    chunk->records += count;
    chunk->string_offset -= static_cast<std::uint32_t>(message_bytes);
    out.message = chunk->data + chunk->string_offset;
    out.chunk = chunk;
    return true;
  }

  // Release: the reserved records and string become visible to the pool thread.
  static void publish(const Reservation& reservation) noexcept {
    reservation.chunk->committed.store(reservation.chunk->records, std::memory_order_release);
  }

  // Delivers everything completed so far; returns after the callbacks ran. In a forked child
  // (which has no pool thread) it returns at once.
  void flush();
  // Final flush and pool thread exit; the caller has already made the pool unreachable.
  // Not callable from the pool's own thread.
  void shutdown();

  std::uint64_t dropped_records() const noexcept;
  std::uint64_t delivered_records() const noexcept {
    return delivered_records_.load(std::memory_order_relaxed);
  }
  // ROC-TX records into this pool carry TSC ticks instead of ns (the recorder's pool).
  void stamp_markers_in_ticks() noexcept {
    markers_in_ticks_.store(true, std::memory_order_relaxed);
  }
  bool markers_in_ticks() const noexcept {
    return markers_in_ticks_.load(std::memory_order_relaxed);
  }
  std::uint32_t index() const noexcept { return index_; }
  std::uint64_t uid() const noexcept { return uid_; }
  // True on the pool's own thread (inside its buffer callback).
  bool on_pool_thread() const noexcept { return std::this_thread::get_id() == thread_.get_id(); }

  // Called from a thread's exit path: seals its chunks so the pool thread delivers them.
  void detach(ProducerSlot* slot) noexcept;

  // Longest string copied into a chunk; longer messages are truncated.
  static constexpr std::size_t kMaxMessageBytes = 1024;
  static constexpr std::size_t kMinBufferSize = 4096;
  static constexpr std::size_t kMaxBufferSize = std::size_t{1} << 30;
  // ROCPROF_POOL_MAX_BYTES as a byte count (unset: the default budget, from the memory the
  // process may use and the ranks on its node); false when it is set to something else than
  // a positive number of bytes (optionally K, M or G), with `error`.
  static bool memory_limit_setting(std::size_t& bytes, std::string& error);

 private:
  ProducerSlot* register_producer(ThreadState& state);
  Chunk* rotate(ProducerSlot* slot) noexcept;
  void push_full(Chunk* chunk) noexcept;
  void wake() noexcept;

  // Pool thread.
  void run();
  void drain_full_queue();
  void deliver_partials();
  void deliver(Chunk* chunk, std::uint32_t upto);
  void finish_sealed(Chunk* chunk);
  void refill_spares();
  void reap_detached();
  // `populate`: fault its memory in now (off the producers' path; see ChunkArena).
  Chunk* allocate_chunk(bool populate);
  void free_chunk(Chunk* chunk) const;

  roctracer_properties_t properties_;
  const std::uint32_t index_;
  const std::uint64_t uid_;
  std::atomic<bool> markers_in_ticks_{false};

  std::atomic<Chunk*> full_head_{nullptr};  // Treiber stack of sealed chunks (LIFO)

  mutable std::mutex slots_mutex_;  // guards slots_ (registration is the cold path)
  std::vector<ProducerSlot*> slots_;

  // Chunk memory: from the arena unless the client gave its own allocator.
  ChunkArena arena_;
  bool from_arena_ = false;

  // Pool-thread state.
  std::vector<Chunk*> free_chunks_;
  std::atomic<std::size_t> allocated_chunks_{0};
  std::size_t chunk_limit_ = 0;
  std::atomic<std::uint64_t> delivered_records_{0};
  std::atomic<std::uint64_t> reaped_dropped_{0};

  std::mutex wake_mutex_;
  std::condition_variable wake_cv_;
  std::atomic<bool> sleeping_{false};
  std::atomic<bool> work_pending_{false};
  std::uint64_t flush_requested_ = 0;  // guarded by wake_mutex_
  std::uint64_t flush_completed_ = 0;  // guarded by wake_mutex_
  std::condition_variable flush_cv_;
  bool stop_requested_ = false;  // guarded by wake_mutex_
  std::thread thread_;
  // A forked child inherits the pool but not its thread: it must never wait for it.
  const int owner_pid_;
};

}  // namespace rocprof::core
