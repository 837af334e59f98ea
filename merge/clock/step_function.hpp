// A rank's causality correction: a non-decreasing step function of time (on the
// clock-aligned, uncorrected axis) giving how far to move events forward from each point.
//
// A large skewed job raises tens of millions of receives, so the steps are kept compact:
// in chunks of up to kChunkSteps, each chunk's first step whole and the rest as varint
// differences from the step before (a few bytes a step instead of sixteen).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "merge/clock/time_stretch.hpp"

namespace rocprof::merge {

class StepFunction {
 public:
  using Step = std::pair<std::uint64_t, std::uint64_t>;  // (time, cumulative shift)
  static constexpr std::uint32_t kChunkSteps = 64;
  struct Chunk {
    std::uint64_t time;    // its first step's
    std::uint64_t value;   // its first step's
    std::uint64_t offset;  // of its other steps' differences in deltas()
    std::uint64_t count;   // steps, the first included (1 to kChunkSteps)
  };

  std::uint64_t at(std::uint64_t t) const noexcept;
  // From `t` on, at least `shift` more than in force at `t` (later steps keep at least that:
  // moving a rank forward never undoes a fix of one of its receives).
  void raise(std::uint64_t t, std::uint64_t shift);
  std::uint64_t max() const noexcept { return tail_.empty() ? 0 : tail_.back().second; }
  bool empty() const noexcept { return chunks_.empty(); }
  std::size_t size() const noexcept;  // steps
  std::vector<Step> steps() const;    // decoded, in time order
  // Replaces the steps (in increasing time, non-decreasing shift: throws otherwise).
  void assign(const std::vector<Step>& steps);
  // Releases what the vectors hold beyond their contents (once no more raises come).
  void shrink_to_fit();
  std::size_t memory_bytes() const noexcept {
    return chunks_.capacity() * sizeof(Chunk) + deltas_.capacity() +
           tail_.capacity() * sizeof(Step);
  }

  // The encoded form, for exchanging between processes, and back: from_encoded checks it
  // all (throws std::runtime_error on anything another build or a damaged message gives).
  const std::vector<Chunk>& chunks() const noexcept { return chunks_; }
  const std::vector<std::uint8_t>& deltas() const noexcept { return deltas_; }
  static StepFunction from_encoded(std::vector<Chunk> chunks, std::vector<std::uint8_t> deltas);

  // at() for one pass over a rank's times, mostly in order: keeps the chunk it last looked
  // in decoded. The same results; one per thread; the function must outlive it and not
  // change meanwhile.
  class Lookup {
   public:
    explicit Lookup(const StepFunction& function) noexcept : function_(function) {}
    explicit Lookup(const StepFunction&& function) = delete;  // would outlive it
    std::uint64_t at(std::uint64_t t) noexcept {
      if (!stretch_.holds(t)) find(t);
      return value_;
    }

   private:
    void find(std::uint64_t t) noexcept;
    const StepFunction& function_;
    TimeStretch stretch_;  // where value_ holds
    std::uint64_t value_ = 0;
    std::size_t chunk_ = ~std::size_t{0};  // decoded in steps_
    std::size_t count_ = 0;                // of its steps
    std::array<Step, kChunkSteps> steps_{};
  };

 private:
  // Index of the chunk whose stretch holds `t` (the last starting at or before it), or
  // chunks_.size() if `t` is before them all.
  std::size_t chunk_at(std::uint64_t t) const noexcept;
  // Writes chunk `index`'s steps to `out` (kChunkSteps of room); returns how many.
  std::size_t decode(std::size_t index, Step* out) const noexcept;
  // The steps of chunk `index` and every chunk after it, decoded.
  std::vector<Step> steps_from(std::size_t index) const;
  // The step in force at `t` among steps [first, last) in time order, the first of them at
  // or before `t`.
  static const Step* in_force(const Step* first, const Step* last, std::uint64_t t) noexcept;
  void append(std::uint64_t time, std::uint64_t value);
  // Drops chunk `index` and those after it (their steps are appended again by the caller).
  void truncate(std::size_t index);
  // The end of chunk `index`'s stretch: the next chunk's first time, or past every time.
  std::uint64_t chunk_end(std::size_t index) const noexcept {
    return index + 1 < chunks_.size() ? chunks_[index + 1].time : ~std::uint64_t{0};
  }

  std::vector<Chunk> chunks_;
  std::vector<std::uint8_t> deltas_;
  // The last chunk's steps, decoded: where a walk's lookups and raises mostly land.
  std::vector<Step> tail_;
};

}  // namespace rocprof::merge
