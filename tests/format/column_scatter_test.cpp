// scatter_column against a byte-by-byte reference: every field width, shuffled and plain,
// starting rows and counts that leave every kind of tail after the 16- and 8-row blocks.
#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <vector>

#include "lib/format/compression.hpp"

namespace {

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

}  // namespace
