// The column transposes of the format module against byte-by-byte references: scatter_column
// (chunk image -> rows) for every field width, shuffled and plain, and ChunkEncoder's split
// (rows -> byte planes), with starting rows and counts that leave every kind of tail after the
// 16- and 8-row blocks.
#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <vector>

#include "lib/format/compression.hpp"

namespace {

using rocprof::format::ChunkDecoder;
using rocprof::format::ChunkEncoder;
using rocprof::format::ColumnPipeline;
using rocprof::format::Compression;
using rocprof::format::scatter_column;

// What a row holds after the scatter, computed one byte at a time from the chunk image.
std::vector<std::byte> reference(const std::vector<std::byte>& image, bool shuffled,
                                 std::size_t width, std::size_t chunk_rows, std::size_t first,
                                 std::size_t count, std::vector<std::byte> rows,
                                 std::size_t row_size, std::size_t offset) {
  for (std::size_t r = 0; r < count; ++r)
    for (std::size_t b = 0; b < width; ++b)
      rows[r * row_size + offset + b] = shuffled && width > 1 ? image[b * chunk_rows + first + r]
                                                              : image[(first + r) * width + b];
  return rows;
}

TEST(ColumnScatter, MatchesTheByteByByteReference) {
  std::mt19937 random(1234);
  constexpr std::size_t kChunkRows = 200;
  for (const std::size_t width : {1, 2, 3, 4, 8}) {
    std::vector<std::byte> image(kChunkRows * width);
    for (auto& byte : image) byte = static_cast<std::byte>(random());
    for (const bool shuffled : {false, true}) {
      for (const std::size_t first : {0, 1, 7, 16, 33}) {
        for (const std::size_t count : {0, 1, 7, 8, 15, 16, 17, 31, 32, 47, 100, 167}) {
          if (first + count > kChunkRows) continue;
          constexpr std::size_t kRowSize = 24;
          const std::size_t offset = width == 8 ? 16 : 5;  // a field not at the row's start
          std::vector<std::byte> rows(count * kRowSize, std::byte{0x5a});
          const auto expected =
              reference(image, shuffled, width, kChunkRows, first, count, rows, kRowSize, offset);
          scatter_column(image.data(), shuffled, width, kChunkRows, first, count, rows.data(),
                         kRowSize, offset);
          ASSERT_EQ(rows, expected) << "width " << width << " shuffled " << shuffled << " first "
                                    << first << " count " << count;
        }
      }
    }
  }
}

TEST(ColumnGather, SplitGivesExactBytePlanesAndRoundTrips) {
  std::mt19937 random(99);
  constexpr std::size_t kChunkRows = 200;
  constexpr std::size_t kRowSize = 40;
  const std::vector<ChunkEncoder::Field> fields = {{0, 8}, {8, 4}, {12, 1}, {16, 8}, {28, 4}};
  ColumnPipeline pipeline;
  pipeline.filters = {ColumnPipeline::Filter::kShuffle, ColumnPipeline::Filter::kZstd};
  ChunkEncoder encoder(Compression{});
  ChunkDecoder decoder;
  for (const std::size_t row_count : {1, 7, 8, 15, 16, 17, 33, 100, 199, 200}) {
    std::vector<std::byte> rows(row_count * kRowSize);
    for (auto& byte : rows) byte = static_cast<std::byte>(random());
    encoder.split_columns(rows.data(), kRowSize, fields, row_count, kChunkRows);
    std::vector<std::byte> back(row_count * kRowSize, std::byte{0});
    for (std::size_t f = 0; f < fields.size(); ++f) {
      const auto [offset, width] = fields[f];
      const auto stored = encoder.encoded(f);
      const std::vector<std::byte> copy(stored.begin(), stored.end());
      std::vector<std::byte> image;
      bool shuffled = false;
      ASSERT_TRUE(decoder.decode(copy, 0, pipeline, kChunkRows * width, image, shuffled));
      if (width > 1) {
        ASSERT_TRUE(shuffled);  // (one-byte planes are the column itself)
      }
      // Byte b of row r sits at b * chunk_rows + r (plain: r * width + b); padding is zero.
      for (std::size_t r = 0; r < kChunkRows; ++r)
        for (std::size_t b = 0; b < width; ++b) {
          const std::byte expected = r < row_count ? rows[r * kRowSize + offset + b] : std::byte{0};
          const std::size_t at = width > 1 ? b * kChunkRows + r : r * width + b;
          ASSERT_EQ(image[at], expected)
              << "rows " << row_count << " field " << f << " row " << r << " byte " << b;
        }
      scatter_column(image.data(), shuffled, width, kChunkRows, 0, row_count, back.data(), kRowSize,
                     offset);
    }
    for (std::size_t r = 0; r < row_count; ++r)
      for (const auto& [offset, width] : fields)
        for (std::size_t b = 0; b < width; ++b)
          ASSERT_EQ(back[r * kRowSize + offset + b], rows[r * kRowSize + offset + b]);
  }
}

}  // namespace
