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

 private:
  Compression compression_;
  std::span<const std::byte> compress(std::span<const std::byte> input);

  std::vector<std::byte> shuffled_;
  std::vector<std::vector<std::byte>> images_;
  std::vector<std::size_t> image_widths_;
  std::vector<std::byte> output_;
  struct Contexts;
  std::unique_ptr<Contexts> contexts_;
};

// HDF5's shuffle: byte j of element i goes to j * count + i (the same transform as the
// stock shuffle filter, so its reverse decodes what this writes).
void shuffle_bytes(std::span<const std::byte> in, std::span<std::byte> out,
                   std::size_t element_size) noexcept;

}  // namespace rocprof::format
