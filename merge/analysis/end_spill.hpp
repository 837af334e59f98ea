// Where a merge process keeps the analysis's message ends and collective calls once they
// outgrow its memory budget: a file of blocks, each a rank's items ordered by slice (a hash
// of a message's stream or of a collective's instance, so that both ends of a message and
// every call of an instance share one). The analysis then takes the job's items a range of
// slices at a time (wait_states.cpp) and holds only that range's.
//
// The file (a ScratchFile: unlinked as soon as it is made) is the process's: the analysis
// writes what else outgrows its memory there too (job_edges.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "merge/analysis/thread_buffer.hpp"
#include "merge/files/scratch_file.hpp"

namespace rocprof::merge {

inline constexpr std::uint32_t kEndSlices = 128;

// The slice of a 64-bit key, spread evenly.
inline std::uint32_t slice_of_key(std::uint64_t key) noexcept {
  key ^= key >> 31;
  key *= 0x9e3779b97f4a7c15ULL;
  key ^= key >> 29;
  return static_cast<std::uint32_t>(key % kEndSlices);
}

// Where a block's items are: from `offset`, slice s's from item starts[s] to starts[s + 1].
struct SpilledBlock {
  std::uint64_t offset = 0;
  std::array<std::uint32_t, kEndSlices + 1> starts{};
  std::size_t items() const noexcept { return starts[kEndSlices]; }
};

// Orders `items` by slice, each slice's in the order they were; returns where each slice
// begins (slice s: items [starts[s], starts[s + 1])). Through the thread's buffers
// (thread_buffer.hpp), kept for the next rank up to kKeptOrderItems items.
inline constexpr std::size_t kKeptOrderItems = std::size_t{1} << 16;
template <typename T, typename SliceOf>
std::array<std::uint32_t, kEndSlices + 1> order_by_slice(std::vector<T>& items, SliceOf slice_of) {
  static_assert(std::is_trivially_copyable_v<T>);
  struct Slices;  // tells the slices' buffer from a buffer of items
  std::array<std::uint32_t, kEndSlices + 1> starts{};
  std::vector<std::uint32_t>& slices = ThreadBuffer<std::uint32_t, Slices>::at_least(items.size());
  std::vector<T>& ordered = ThreadBuffer<T>::at_least(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    slices[i] = slice_of(items[i]);
    ++starts[slices[i] + 1];
  }
  for (std::uint32_t s = 0; s < kEndSlices; ++s) starts[s + 1] += starts[s];
  std::array<std::uint32_t, kEndSlices> next{};
  std::copy_n(starts.begin(), kEndSlices, next.begin());
  for (std::size_t i = 0; i < items.size(); ++i) ordered[next[slices[i]]++] = items[i];
  std::copy_n(ordered.begin(), items.size(), items.begin());
  ThreadBuffer<std::uint32_t, Slices>::keep_at_most(kKeptOrderItems);
  ThreadBuffer<T>::keep_at_most(kKeptOrderItems);
  return starts;
}

// Slices [first, last) of the job's kEndSlices, the part one round of the analysis holds.
struct SliceRange {
  std::uint32_t first = 0;
  std::uint32_t last = kEndSlices;
  bool holds(std::uint32_t slice) const noexcept { return slice >= first && slice < last; }
  bool whole() const noexcept { return first == 0 && last == kEndSlices; }
};

class EndSpill {
 public:
  // `directory`: where the file is made (and unlinked at once); `budget`: the bytes of items
  // the process's gatherers hold in memory before they spill. Throws std::runtime_error if
  // the file cannot be made.
  EndSpill(const std::string& directory, std::size_t budget)
      : file_(std::make_shared<ScratchFile>(directory)), budget_(budget) {}

  // What gatherers hold: each tells what it took on and let go; true once the process holds
  // more than its budget (then the gatherer that asks spills what it holds).
  bool hold(std::size_t bytes) noexcept {
    return held_.fetch_add(bytes, std::memory_order_relaxed) + bytes > budget_;
  }
  void let_go(std::size_t bytes) noexcept { held_.fetch_sub(bytes, std::memory_order_relaxed); }
  std::uint64_t spilled_bytes() const noexcept { return spilled_.load(std::memory_order_relaxed); }
  // The file, for the analysis's other spills.
  const std::shared_ptr<ScratchFile>& file() const noexcept { return file_; }

  // Writes `items` ordered by slice (their order kept within a slice) and empties it; safe
  // on several threads at once. Throws std::runtime_error on a write error (a full disk).
  template <typename T, typename SliceOf>
  SpilledBlock spill(std::vector<T>& items, SliceOf slice_of) {
    static_assert(std::is_trivially_copyable_v<T>);
    SpilledBlock block;
    block.starts = order_by_slice(items, slice_of);
    block.offset = file_->append(std::as_bytes(std::span(items)));
    spilled_.fetch_add(items.size() * sizeof(T), std::memory_order_relaxed);
    items.clear();
    return block;
  }

  // Appends the block's items of slices in `range` to `out`; any thread. Throws
  // std::runtime_error on a read error.
  template <typename T>
  void read(const SpilledBlock& block, SliceRange range, std::vector<T>& out) const {
    const std::uint32_t first = block.starts[range.first];
    const std::uint32_t count = block.starts[range.last] - first;
    if (count == 0) return;
    const std::size_t at = out.size();
    out.resize(at + count);
    file_->read(block.offset + std::uint64_t{first} * sizeof(T),
                std::as_writable_bytes(std::span(out).subspan(at)));
  }

 private:
  std::shared_ptr<ScratchFile> file_;
  std::size_t budget_;
  std::atomic<std::size_t> held_{0};
  std::atomic<std::uint64_t> spilled_{0};  // bytes of blocks written
};

}  // namespace rocprof::merge
