// Compression settings of a rank file and the chunk encoder that applies them. Chunks are
// encoded here (shuffle, then zstd or deflate) and handed to HDF5 already filtered, with the
// same filter pipeline declared on the dataset, so any HDF5 reader decodes them normally.
#pragma once

#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rocprof::format {

enum class Codec : std::uint8_t { kNone, kZstd, kDeflate };

struct Compression {
  Codec codec = Codec::kZstd;
  int level = 1;  // zstd: 1..19 (negative: faster); deflate: 1..9

  // "zstd", "zstd:3", "deflate", "deflate:6", "none". False with `error` set otherwise.
  static bool parse(std::string_view text, Compression& out, std::string& error);
  std::string to_string() const;
};

// Adds the filters of `compression` for elements of `element_size` bytes to a dataset
// creation property list. False if HDF5 refused (error stack left as is).
bool add_filters(hid_t dataset_properties, const Compression& compression,
                 std::size_t element_size);

// Encodes column chunks; reuses its buffers and compression context across chunks, so
// steady-state encoding allocates nothing. One per writer thread.
class ChunkEncoder {
 public:
  explicit ChunkEncoder(const Compression& compression);
  ~ChunkEncoder();
  ChunkEncoder(const ChunkEncoder&) = delete;
  ChunkEncoder& operator=(const ChunkEncoder&) = delete;

  // The stored bytes of a chunk holding `raw` (a whole chunk: rows * element_size bytes).
  // Valid until the next call. Empty on a codec failure.
  std::span<const std::byte> encode(std::span<const std::byte> raw, std::size_t element_size);

  // Splits rows [0, row_count) of `rows` (row_size bytes each) into one chunk image of
  // `chunk_rows` elements per field of `fields` (byte offset and width 1, 4 or 8; zeros past
  // row_count), shuffled when a codec follows. Rows are visited in cache-sized blocks, every
  // field at once. Then encoded(i) gives the stored bytes of field i.
  struct Field {
    std::size_t offset;
    std::size_t width;
  };
  void split_columns(const std::byte* rows, std::size_t row_size, std::span<const Field> fields,
                     std::size_t row_count, std::size_t chunk_rows);
  // Valid until the next call. Empty on a codec failure.
  std::span<const std::byte> encoded(std::size_t field);

  // The stored bytes of a chunk of packed rows (format 2): rows [0, row_count) of `rows` with
  // their `fields` side by side in that order, `chunk_rows` rows (zeros past row_count),
  // shuffled over the packed row when a codec follows. Valid until the next call; empty on a
  // codec failure.
  std::span<const std::byte> encode_packed(const std::byte* rows, std::size_t row_size,
                                           std::span<const Field> fields, std::size_t row_count,
                                           std::size_t chunk_rows);

 private:
  Compression compression_;
  std::span<const std::byte> compress(std::span<const std::byte> input);

  std::vector<std::byte> shuffled_;
  // The column images of split_columns, one after the other (image f at image_offsets_[f]):
  // shuffled, they are also the shuffled image of the packed rows.
  std::vector<std::byte> images_;
  std::vector<std::size_t> image_offsets_;
  std::vector<std::size_t> image_widths_;
  std::size_t image_rows_ = 0;
  std::vector<std::byte> output_;
  struct Contexts;
  std::unique_ptr<Contexts> contexts_;
};

// HDF5's Fletcher-32 checksum of `data` (filter 3, H5Pset_fletcher32): 16-bit big-endian
// words summed in two 16-bit sums, a trailing odd byte as the high half of a word.
std::uint32_t fletcher32(std::span<const std::byte> data) noexcept;
// Appends to a chunk's stored bytes the checksum HDF5's Fletcher-32 filter stores after them
// (little-endian), so that stock HDF5 verifies the chunks the writer builds itself.
void append_fletcher32(std::vector<std::byte>& stored);

// A dataset's filter pipeline (a column's, or a table's packed rows'), in pipeline order: what
// the reader's own chunk decoder needs to undo. `supported` is false for any other filter, a
// shuffle that is not first, or a big-endian type or member; the reader then lets HDF5 decode.
struct ColumnPipeline {
  // kFletcher32 last: it bounds what a check helper may name (RankFileReader from a digest).
  enum class Filter : std::uint8_t { kShuffle, kZstd, kDeflate, kFletcher32 };
  std::vector<Filter> filters;
  bool supported = true;
};
// From a dataset's creation properties and its stored element type.
ColumnPipeline column_pipeline(hid_t dataset_creation, hid_t stored_type);

// Decodes stored chunks of rank-file columns (the reverse of ChunkEncoder), reusing its
// buffers and decompression context. One per reader.
class ChunkDecoder {
 public:
  ChunkDecoder();
  ~ChunkDecoder();
  ChunkDecoder(const ChunkDecoder&) = delete;
  ChunkDecoder& operator=(const ChunkDecoder&) = delete;

  // Decodes the chunk stored as `stored` into `image` (resized to `raw_size`); bit i of
  // `filter_mask` set means filter i of the pipeline was not applied. False if the chunk does
  // not decode to exactly `raw_size` bytes. A first-applied shuffle is left for
  // scatter_column to undo (it does so in the same pass): `shuffled` says whether it was.
  bool decode(std::span<const std::byte> stored, unsigned filter_mask,
              const ColumnPipeline& pipeline, std::size_t raw_size, std::vector<std::byte>& image,
              bool& shuffled);

 private:
  std::vector<std::byte> buffers_[2];
  struct Contexts;
  std::unique_ptr<Contexts> contexts_;
};

// HDF5's shuffle: byte j of element i goes to j * count + i (the same transform as the
// stock shuffle filter, so its reverse decodes what this writes).
void shuffle_bytes(std::span<const std::byte> in, std::span<std::byte> out,
                   std::size_t element_size) noexcept;
// One field (`width` bytes at `packed_offset` in each element of `element_size` bytes) of
// elements [first, first + count) of an unshuffled chunk image into a field (at `offset`) of
// consecutive rows of `row_size` bytes: packed rows stored without a codec.
void scatter_packed_field(const std::byte* image, std::size_t element_size,
                          std::size_t packed_offset, std::size_t width, std::size_t first,
                          std::size_t count, std::byte* rows, std::size_t row_size,
                          std::size_t offset) noexcept;
// Elements [first, first + count) of a decoded column chunk image (`chunk_rows` elements of
// `width` bytes, in byte planes if `shuffled`) into one field (at `offset`) of consecutive
// rows of `row_size` bytes: the reverse of ChunkEncoder::split_columns.
void scatter_column(const std::byte* image, bool shuffled, std::size_t width,
                    std::size_t chunk_rows, std::size_t first, std::size_t count, std::byte* rows,
                    std::size_t row_size, std::size_t offset) noexcept;

}  // namespace rocprof::format
