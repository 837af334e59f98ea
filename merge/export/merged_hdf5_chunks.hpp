#pragma once
// The producing side of a merged .h5 file: a table's rows go into chunk-sized buffers on the
// table's global chunk grid, whole chunks are encoded on helper threads and written (or sent to
// the writing process) in order, chunks shared with another process's block go out as rows.
// Internal to the merged .h5 output (merged_hdf5.cpp); in namespace merged_hdf5.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <vector>

#include "lib/format/background_worker.hpp"
#include "lib/format/compression.hpp"
#include "merge/export/merged_hdf5_file.hpp"
#include "merge/export/merged_hdf5_layout.hpp"
#include "merge/parallel/chunk_messages.hpp"

namespace rocprof::merge::merged_hdf5 {

using namespace rocprof::format;

// The producing side: rows go into a chunk-sized buffer on the table's global chunk grid; a
// whole chunk is encoded here, a chunk shared with another block goes out as rows.
class ChunkProducer {
 public:
  // `file`: this process writes (null: send everything to the writer). `between_chunks` runs
  // after each chunk is handed on: the writer takes the others' chunks there, so that their
  // sends never wait long for it. `encoders`: chunks encoded at once on helpers (at least 1).
  ChunkProducer(FileTables* file, const ChunkSender* sender, ChunkEncoder& encoder,
                std::function<void()> between_chunks, std::size_t encoders)
      : file_(file),
        sender_(sender),
        encoder_(encoder),
        between_chunks_(std::move(between_chunks)) {
    for (std::size_t i = 0; i < std::max<std::size_t>(encoders, 1); ++i)
      slots_.push_back(std::make_unique<Slot>());
  }
  // The helpers use this object's buffers: they finish first.
  ~ChunkProducer() {
    for (const auto& slot : slots_) slot->worker.wait_quietly();
  }
  ChunkProducer(const ChunkProducer&) = delete;
  ChunkProducer& operator=(const ChunkProducer&) = delete;

  // Rows [first, first + count) of table `table` (of `total` in all; unknown: UINT64_MAX) come
  // from this process.
  void begin(std::size_t table, const Layout& layout, std::uint64_t first, std::uint64_t total) {
    table_ = table;
    layout_ = &layout;
    total_ = total;
    next_ = first;
    chunk_ = first / kChunk;
    buffer_first_ = first % kChunk;
    buffer_.assign(kChunk * layout.row_size, std::byte{0});
  }
  // Where the next row goes: every field of it is to be written (the buffer is reused as it
  // is; only the layout's fields reach the file, so the bytes between them never do).
  std::byte* next_row() {
    if (next_ - chunk_ * kChunk == kChunk) flush(false);
    return buffer_.data() + (next_++ - chunk_ * kChunk) * layout_->row_size;
  }
  // Rows made ready aside (`row_size` bytes each, the layout's), after those so far.
  void append(const std::vector<std::byte>& rows, std::size_t row_size) {
    for (std::size_t at = 0; at + row_size <= rows.size(); at += row_size)
      std::memcpy(next_row(), rows.data() + at, row_size);
  }
  // The rows so far are the table's last ones when `last` (its total is then known).
  void end(bool last) {
    flush(last);
    finish_encoding();
  }
  std::uint64_t rows_until_now() const { return next_; }

 private:
  // Whole chunks are split and compressed on helper threads while the next ones fill (the
  // encoder is the merged file's main cost: with one helper, the thread filling chunks spent
  // much of its time waiting for it). They are written or sent in chunk order, on this
  // thread, which alone calls HDF5 and MPI.
  struct Slot {
    std::vector<std::byte> rows;  // the chunk the helper encodes
    std::size_t table = 0;
    std::uint64_t chunk = 0;
    std::uint64_t row_count = 0;
    std::vector<std::vector<std::byte>> columns;
    ChunkEncoder encoder{Compression{}};
    format::BackgroundWorker worker;
  };

  void start_encoding(std::uint64_t rows) {
    // The oldest chunk in hand goes out first when every helper is busy: chunk order.
    if (in_hand_ == slots_.size()) finish_oldest();
    Slot& slot = *slots_[(oldest_ + in_hand_) % slots_.size()];
    ++in_hand_;
    slot.rows.swap(buffer_);
    slot.table = table_;
    slot.chunk = chunk_;
    slot.row_count = rows;
    slot.columns.resize(layout_->fields.size());
    slot.worker.start([&slot, layout = layout_] {
      slot.encoder.split_columns(slot.rows.data(), layout->row_size, layout->fields, slot.row_count,
                                 kChunk);
      for (std::size_t c = 0; c < layout->fields.size(); ++c) {
        const auto stored = slot.encoder.encoded(c);
        if (stored.empty()) throw std::runtime_error("compression failed");
        slot.columns[c].assign(stored.begin(), stored.end());
      }
    });
    buffer_.resize(slot.rows.size());
  }

  // Writes (or sends) the oldest chunk in hand once encoded.
  void finish_oldest() {
    Slot& slot = *slots_[oldest_];
    oldest_ = (oldest_ + 1) % slots_.size();
    --in_hand_;
    slot.worker.wait();  // rethrows a compression failure
    if (file_ != nullptr) {
      std::vector<std::span<const std::byte>> columns(slot.columns.begin(), slot.columns.end());
      file_->write_encoded(slot.table, slot.chunk, slot.row_count, columns);
      return;
    }
    sender_->send_encoded_chunk(static_cast<std::uint32_t>(slot.table), slot.chunk, slot.row_count,
                                slot.columns);
  }

  // Every chunk in hand, in order.
  void finish_encoding() {
    while (in_hand_ > 0) finish_oldest();
  }

  void flush(bool last) {
    const std::uint64_t chunk_start = chunk_ * kChunk;
    const std::uint64_t end = next_ - chunk_start;  // rows of the chunk filled so far
    if (end > buffer_first_) {
      const std::uint64_t chunk_end = std::min<std::uint64_t>(kChunk, total_ - chunk_start);
      const bool whole = buffer_first_ == 0 && (end == chunk_end || last);
      if (whole) {
        start_encoding(end);
      } else {
        finish_encoding();  // the partial rows' path may use the encoder
        const std::uint64_t count = end - buffer_first_;
        const std::byte* rows = buffer_.data() + buffer_first_ * layout_->row_size;
        if (file_ != nullptr) {
          file_->add_rows(table_, chunk_, buffer_first_, count, chunk_end, rows, encoder_);
        } else {
          sender_->send_partial_rows(static_cast<std::uint32_t>(table_), chunk_, buffer_first_,
                                     count, {rows, count * layout_->row_size});
        }
      }
    }
    ++chunk_;
    buffer_first_ = 0;
    if (between_chunks_) between_chunks_();
  }

  FileTables* file_;
  const ChunkSender* sender_;
  ChunkEncoder& encoder_;
  std::function<void()> between_chunks_;
  std::size_t table_ = 0;
  const Layout* layout_ = nullptr;
  std::uint64_t total_ = 0;
  std::uint64_t next_ = 0;
  std::uint64_t chunk_ = 0;
  std::uint64_t buffer_first_ = 0;
  std::vector<std::byte> buffer_;
  std::vector<std::unique_ptr<Slot>> slots_;  // a ring: chunks in hand from oldest_ on
  std::size_t oldest_ = 0;
  std::size_t in_hand_ = 0;
};

}  // namespace rocprof::merge::merged_hdf5
