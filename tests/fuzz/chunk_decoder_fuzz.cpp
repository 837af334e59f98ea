// libFuzzer target for the rank-file block decoder: the zstd filter's decode path (what every
// reader runs on each stored chunk) and HDF5's byte shuffle.
//  1. Arbitrary bytes as a stored chunk: decoding must fail cleanly or succeed, never crash,
//     over-read or leak.
//  2. Arbitrary bytes as a column chunk: encode (split + shuffle + zstd, as the writer does),
//     decode (zstd filter + unshuffle, as a reader does) and compare.
#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "lib/format/compression.hpp"
#include "lib/format/zstd_filter.hpp"

namespace {

using namespace rocprof::format;

// The filter callback as HDF5 calls it; returns the decoded bytes or an empty vector.
std::vector<std::byte> run_filter(unsigned flags, const std::byte* data, std::size_t size,
                                  bool& ok) {
  std::size_t buffer_size = size == 0 ? 1 : size;
  void* buffer = std::malloc(buffer_size);
  std::memcpy(buffer, data, size);
  const unsigned level = 1;
  const std::size_t result =
      zstd_filter_class()->filter(flags, 1, &level, size, &buffer_size, &buffer);
  ok = result != 0 || size == 0;
  std::vector<std::byte> out;
  if (result != 0)
    out.assign(static_cast<std::byte*>(buffer), static_cast<std::byte*>(buffer) + result);
  std::free(buffer);
  return out;
}

void unshuffle(const std::vector<std::byte>& in, std::vector<std::byte>& out, std::size_t width) {
  const std::size_t count = in.size() / width;
  out.resize(in.size());
  for (std::size_t b = 0; b < width; ++b)
    for (std::size_t i = 0; i < count; ++i) out[i * width + b] = in[b * count + i];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto* bytes = reinterpret_cast<const std::byte*>(data);
  bool ok = false;
  (void)run_filter(H5Z_FLAG_REVERSE, bytes, size, ok);

  if (size < 2) return 0;
  // First byte picks the element width; the rest are rows of one column.
  const std::size_t widths[] = {1, 4, 8};
  const std::size_t width = widths[data[0] % 3];
  const std::size_t rows = (size - 1) / width;
  if (rows == 0) return 0;
  const std::size_t chunk_rows = rows + data[1] % 7;  // some padding rows
  Compression compression;
  ChunkEncoder encoder(compression);
  const ChunkEncoder::Field field{0, width};
  encoder.split_columns(bytes + 1, width, {&field, 1}, rows, chunk_rows);
  const std::span<const std::byte> stored = encoder.encoded(0);
  if (stored.empty()) std::abort();
  const std::vector<std::byte> decoded =
      run_filter(H5Z_FLAG_REVERSE, stored.data(), stored.size(), ok);
  if (!ok || decoded.size() != chunk_rows * width) std::abort();
  std::vector<std::byte> plain = decoded;
  if (width > 1) unshuffle(decoded, plain, width);
  if (std::memcmp(plain.data(), bytes + 1, rows * width) != 0) std::abort();
  for (std::size_t i = rows * width; i < plain.size(); ++i)
    if (plain[i] != std::byte{0}) std::abort();
  return 0;
}
