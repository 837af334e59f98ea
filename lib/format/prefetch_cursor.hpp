// Streams a table chunk by chunk like TableCursor, but reads and decodes the next chunk on a
// helper thread while the caller works on the current one: reading a rank file is about a
// third of a merge's time, and this takes it off the merge's thread. HDF5 is only called
// from the caller's thread (locating the table's chunks, once); the helper reads the stored
// chunk with pread, runs decode_chunk, which needs no HDF5, and the caller's `prepare`
// (aligning timestamps, say) on the decoded rows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "lib/format/background_worker.hpp"
#include "lib/format/rank_file_reader.hpp"

namespace rocprof::format {

template <typename Row>
class PrefetchCursor {
 public:
  // Runs on the decoded rows before next() hands them out; on the helper thread when there
  // is one, so it must not touch HDF5 or anything the caller changes meanwhile.
  using Prepare = std::function<void(Row* rows, std::size_t count)>;

  explicit PrefetchCursor(const RankFileReader& reader, Prepare prepare = {})
      : reader_(reader),
        total_(reader.row_count<Row>()),
        prepare_(std::move(prepare)),
        raw_(total_ > 0 && reader.template map_chunks<Row>()) {}
  ~PrefetchCursor() = default;  // the worker (declared last) waits for its task first
  PrefetchCursor(const PrefetchCursor&) = delete;
  PrefetchCursor& operator=(const PrefetchCursor&) = delete;

  // The next block of rows (a chunk, or what is left of it): false at the end. Throws
  // FormatError for a damaged chunk.
  bool next(std::vector<Row>& rows) {
    if (position_ >= total_) return false;
    // The first block is decoded right here: the caller would only wait for it.
    if (!started_) start(position_, false);
    helper_.wait();  // rethrows what the helper threw
    rows.swap(ready_);
    position_ += rows.size();
    // The caller's previous block is done with: the helper decodes the next one into it.
    if (position_ < total_) start(position_, true);
    return true;
  }

 private:
  void start(std::uint64_t first, bool in_background) {
    started_ = true;
    const std::uint64_t wanted = total_ - first;
    // In the foreground (the first block, which the caller waits for anyway) or for a filter
    // only HDF5 decodes: an ordinary read, with the reader's per-thread buffers. Most tables
    // of a small rank fit in one chunk and never need buffers or a helper of their own.
    if (!in_background || !raw_) {
      reader_.read(first, std::min<std::uint64_t>(wanted, kChunkRows), ready_);
      if (prepare_) prepare_(ready_.data(), ready_.size());
      return;
    }
    if (!buffers_) buffers_ = std::make_unique<ChunkDecodeBuffers>();
    helper_.start([this, first, wanted] {
      reader_.template read_chunk<Row>(first, wanted, stored_);
      ready_.resize(stored_.count);
      decode_chunk(stored_, *buffers_, reinterpret_cast<std::byte*>(ready_.data()));
      if (prepare_) prepare_(ready_.data(), ready_.size());
    });
  }

  const RankFileReader& reader_;
  std::uint64_t total_;
  Prepare prepare_;
  std::uint64_t position_ = 0;
  bool raw_;  // chunks read with pread (on the helper); false: through HDF5, here
  bool started_ = false;
  StoredChunk stored_;
  std::unique_ptr<ChunkDecodeBuffers> buffers_;  // made at the first background decode
  std::vector<Row> ready_;
  BackgroundWorker helper_;  // last: destroyed (and waited for) before what its task uses
};

}  // namespace rocprof::format
