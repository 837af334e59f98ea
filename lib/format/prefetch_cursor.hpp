// Streams a table chunk by chunk like TableCursor, but reads and decodes the next chunks on
// helper threads while the caller works on the current one: reading a rank file is about a
// third of a merge's time, and this takes it off the merge's thread. HDF5 is only called
// from the caller's thread (locating the table's chunks, once); each helper reads a stored
// chunk with pread, runs decode_chunk, which needs no HDF5, and the caller's `prepare`
// (aligning timestamps, say) on the decoded rows. Up to `depth` chunks are in flight at
// once, each on a helper of its own (from ChunkReaderPool), so a fast caller is fed by
// several cores.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "lib/format/chunk_reader_pool.hpp"
#include "lib/format/rank_file_reader.hpp"
#include "lib/format/row_buffers.hpp"

namespace rocprof::format {

// Chunks read ahead by default: two keep a merge's thread fed on two cores and more.
inline constexpr std::size_t kPrefetchDepth = 2;

template <typename Row>
class PrefetchCursor {
 public:
  // Runs on each block of decoded rows before next() hands it out. It runs on the helper
  // threads, on several blocks at once: it must be safe to call concurrently, and must not
  // touch HDF5 or anything the caller changes meanwhile. Order-dependent work belongs to the
  // caller, after next().
  using Prepare = std::function<void(Row* rows, std::size_t count)>;

  // Only the `columns` asked for are read; the rows' other fields are unspecified.
  explicit PrefetchCursor(const RankFileReader& reader, Prepare prepare = {},
                          std::size_t depth = kPrefetchDepth, ColumnSet columns = kAllColumns)
      : reader_(reader),
        total_(reader.row_count<Row>()),
        prepare_(std::move(prepare)),
        columns_(columns),
        raw_(total_ > 0 && reader.template map_chunks<Row>()),
        block_rows_(raw_ ? reader.template chunk_rows<Row>() : kChunkRows) {
    slots_.resize(std::max<std::size_t>(depth, 1));
  }
  ~PrefetchCursor() {
    for (std::unique_ptr<Slot>& slot : slots_)
      if (slot) {
        slot->reader->worker.wait_quietly();  // before its rows go
        RowBuffers<Row>::give_back(slot->rows);
      }
    RowBuffers<Row>::give_back(given_first_);
  }
  PrefetchCursor(const PrefetchCursor&) = delete;
  PrefetchCursor& operator=(const PrefetchCursor&) = delete;

  // Hands out `rows` as the first block instead of reading it: rows [0, n) of the table,
  // prepared, n the chunk's rows (or all, if fewer), read ahead by the caller. Before next().
  void use_first_block(std::vector<Row>&& rows) {
    if (position_ == 0 && in_flight_ == 0 && rows.size() == std::min(block_rows_, total_)) {
      RowBuffers<Row>::give_back(given_first_);
      given_first_ = std::move(rows);
      has_given_first_ = true;
    }
  }

  // The next block of rows (a chunk): false at the end, with `rows` emptied (its memory is
  // kept for the next table read). Throws FormatError for a damaged chunk, at the block it
  // is in (the blocks before it are handed out first).
  bool next(std::vector<Row>& rows) {
    if (position_ >= total_) {
      RowBuffers<Row>::give_back(rows);
      return false;
    }
    if (rows.capacity() == 0) rows = RowBuffers<Row>::take();
    if (in_flight_ == 0) {
      // Nothing read ahead: the first block, or a table only HDF5 decodes. The helpers start
      // on the blocks after it first, then this block is read right here (the caller would
      // only wait for it). Most tables of a small rank fit in one chunk and never start one.
      const std::uint64_t count = std::min(block_rows_, total_ - position_);
      issued_ = position_ + count;
      read_ahead();
      if (has_given_first_) {
        rows.swap(given_first_);  // the caller's vector is kept as it is, for the pool
        has_given_first_ = false;
      } else {
        reader_.read(position_, count, rows, columns_);
        if (prepare_) prepare_(rows.data(), rows.size());
      }
    } else {
      Slot& slot = *slots_[head_];
      slot.reader->worker.wait();  // rethrows what the helper threw
      rows.swap(slot.rows);
      head_ = (head_ + 1) % slots_.size();
      --in_flight_;
      read_ahead();
    }
    position_ += rows.size();
    return true;
  }

 private:
  struct Slot {
    std::vector<Row> rows;
    PooledChunkReader reader;  // last: given back (its task waited for) before the rows go
  };

  // Starts helpers on the blocks after those in flight, up to the depth.
  void read_ahead() {
    if (!raw_) return;
    while (in_flight_ < slots_.size() && issued_ < total_) {
      std::unique_ptr<Slot>& held = slots_[(head_ + in_flight_) % slots_.size()];
      if (!held) {
        held = std::make_unique<Slot>();
        held->rows = RowBuffers<Row>::take();
      }
      Slot& slot = *held;
      const std::uint64_t first = issued_;
      const std::uint64_t count = std::min(block_rows_, total_ - first);
      ChunkReader& helper = *slot.reader;
      helper.worker.start([this, &slot, &helper, first, count] {
        reader_.template read_chunk<Row>(first, count, helper.stored, columns_);
        slot.rows.resize(helper.stored.count);
        decode_chunk(helper.stored, helper.buffers, reinterpret_cast<std::byte*>(slot.rows.data()));
        if (prepare_) prepare_(slot.rows.data(), slot.rows.size());
      });
      issued_ += count;
      ++in_flight_;
    }
  }

  const RankFileReader& reader_;
  std::uint64_t total_;
  Prepare prepare_;
  ColumnSet columns_;
  bool raw_;  // chunks read with pread (on helpers); false: through HDF5, here
  std::uint64_t block_rows_;
  std::uint64_t position_ = 0;  // rows handed out
  std::uint64_t issued_ = 0;    // rows handed out or being read ahead
  std::size_t head_ = 0;        // the slot of the next block read ahead
  std::size_t in_flight_ = 0;
  std::vector<Row> given_first_;
  bool has_given_first_ = false;
  std::vector<std::unique_ptr<Slot>> slots_;  // made at their first use
};

}  // namespace rocprof::format
