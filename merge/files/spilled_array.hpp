// Items appended in order and read back in order or by index: held in memory up to a number
// of bytes, past it written to a scratch file a piece at a time (with no file, all held).
// What a merge process makes of a whole job's items (the analysis's wait edges) lives here,
// so that no process holds them all.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

#include "merge/files/scratch_file.hpp"

namespace rocprof::merge {

template <typename T>
class SpilledArray {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  SpilledArray() = default;  // every item held
  SpilledArray(std::shared_ptr<ScratchFile> file, std::size_t memory)
      : file_(std::move(file)), memory_(std::max<std::size_t>(memory, sizeof(T))) {}

  // Throws std::runtime_error on a write error.
  void append(std::span<const T> items) {
    // With a file, the held items get their budget at once: grown by doubling they would take
    // up to twice it.
    if (file_ && held_.capacity() == 0) held_.reserve(memory_ / sizeof(T));
    if (file_ && (held_.size() + items.size()) * sizeof(T) >= memory_) {
      // Past the memory: what is held, then `items` from where they are (not copied in).
      write_out(held_);
      held_.clear();
      write_out(items);
    } else {
      held_.insert(held_.end(), items.begin(), items.end());
    }
  }
  std::uint64_t size() const noexcept { return written_ + held_.size(); }
  bool spilled() const noexcept { return !pieces_.empty(); }

  // Items [first, first + out.size()) into `out`. Throws std::runtime_error on a read error.
  void read(std::uint64_t first, std::span<T> out) const {
    std::size_t done = 0;
    const std::uint64_t held_first = written_;
    while (done < out.size()) {
      const std::uint64_t at = first + done;
      if (at >= held_first) {
        std::copy_n(held_.begin() + static_cast<std::ptrdiff_t>(at - held_first), out.size() - done,
                    out.begin() + static_cast<std::ptrdiff_t>(done));
        return;
      }
      // The piece holding `at`: the last that starts at or before it.
      const auto piece = std::prev(
          std::upper_bound(pieces_.begin(), pieces_.end(), at,
                           [](std::uint64_t index, const Piece& p) { return index < p.first; }));
      const auto count = static_cast<std::size_t>(
          std::min<std::uint64_t>(piece->first + piece->count - at, out.size() - done));
      file_->read(piece->offset + (at - piece->first) * sizeof(T),
                  std::as_writable_bytes(out.subspan(done, count)));
      done += count;
    }
  }

  // visit(std::span<const T>) on every item in order, at most `step` items a call.
  template <typename Visit>
  void for_each_piece(std::size_t step, Visit visit) const {
    step = std::max<std::size_t>(step, 1);
    const std::uint64_t held_first = written_;
    std::vector<T> buffer;
    for (std::uint64_t at = 0; at < held_first; at += buffer.size()) {
      buffer.resize(static_cast<std::size_t>(std::min<std::uint64_t>(step, held_first - at)));
      read(at, buffer);
      visit(std::span<const T>(buffer));
    }
    for (std::size_t at = 0; at < held_.size(); at += step)
      visit(std::span<const T>(held_).subspan(at, std::min(step, held_.size() - at)));
  }

 private:
  struct Piece {
    std::uint64_t first;  // index of its first item
    std::uint64_t offset;
    std::uint64_t count;
  };

  // Appends `items` as the next piece (after every item written so far).
  void write_out(std::span<const T> items) {
    if (items.empty()) return;
    const std::uint64_t offset = file_->append(std::as_bytes(items));
    pieces_.push_back({written_, offset, items.size()});
    written_ += items.size();
  }

  std::shared_ptr<ScratchFile> file_;
  std::size_t memory_ = 0;
  std::vector<Piece> pieces_;
  std::vector<T> held_;        // the last items, not written out
  std::uint64_t written_ = 0;  // items in pieces
};

}  // namespace rocprof::merge
