#include "lib/format/compression.hpp"

#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <charconv>
#include <cstring>

#include <fmt/format.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "lib/format/zstd_filter.hpp"

namespace rocprof::format {

bool Compression::parse(std::string_view text, Compression& out, std::string& error) {
  const std::size_t colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  Compression result;
  if (name == "none") {
    result = {Codec::kNone, 0};
  } else if (name == "zstd") {
    result = {Codec::kZstd, 1};
  } else if (name == "deflate" || name == "gzip") {
    result = {Codec::kDeflate, 1};
  } else {
    error =
        fmt::format("unknown compression '{}' (use zstd[:LEVEL], deflate[:LEVEL] or none)", text);
    return false;
  }
  if (colon != std::string_view::npos) {
    const std::string_view level = text.substr(colon + 1);
    int value = 0;
    const auto [end, code] = std::from_chars(level.data(), level.data() + level.size(), value);
    const bool in_range = result.codec == Codec::kZstd ? value >= -5 && value <= 19 && value != 0
                          : result.codec == Codec::kDeflate ? value >= 1 && value <= 9
                                                            : false;
    if (code != std::errc{} || end != level.data() + level.size() || !in_range) {
      error = fmt::format(
          "bad compression level in '{}' (zstd: -5..19 except 0, deflate: 1..9, "
          "none takes no level)",
          text);
      return false;
    }
    result.level = value;
  }
  out = result;
  return true;
}

std::string Compression::to_string() const {
  switch (codec) {
    case Codec::kNone:
      return "none";
    case Codec::kZstd:
      return fmt::format("zstd:{}", level);
    case Codec::kDeflate:
      return fmt::format("deflate:{}", level);
  }
  return "?";
}

bool add_filters(hid_t dataset_properties, const Compression& compression,
                 std::size_t element_size) {
  if (compression.codec == Codec::kNone) return true;
  if (element_size > 1 && H5Pset_shuffle(dataset_properties) < 0) return false;
  if (compression.codec == Codec::kDeflate)
    return H5Pset_deflate(dataset_properties, static_cast<unsigned>(compression.level)) >= 0;
  // The level travels as the filter's client value, as other zstd writers do; a negative
  // level is stored in two's complement.
  const auto level = static_cast<unsigned>(compression.level);
  return register_zstd_filter() &&
         H5Pset_filter(dataset_properties, kZstdFilterId, H5Z_FLAG_MANDATORY, 1, &level) >= 0;
}

void shuffle_bytes(std::span<const std::byte> in, std::span<std::byte> out,
                   std::size_t element_size) noexcept {
  const std::size_t count = in.size() / element_size;
  for (std::size_t byte = 0; byte < element_size; ++byte) {
    std::byte* plane = out.data() + byte * count;
    const std::byte* source = in.data() + byte;
    for (std::size_t i = 0; i < count; ++i) plane[i] = source[i * element_size];
  }
  // Like HDF5's filter: trailing bytes that do not form a whole element stay in place.
  const std::size_t tail = count * element_size;
  for (std::size_t i = tail; i < in.size(); ++i) out[i] = in[i];
}

struct ChunkEncoder::Contexts {
  ZSTD_CCtx* zstd = nullptr;
  ~Contexts() { ZSTD_freeCCtx(zstd); }
};

ChunkEncoder::ChunkEncoder(const Compression& compression)
    : compression_(compression), contexts_(std::make_unique<Contexts>()) {
  if (compression_.codec == Codec::kZstd) {
    contexts_->zstd = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(contexts_->zstd, ZSTD_c_compressionLevel, compression_.level);
  }
}

ChunkEncoder::~ChunkEncoder() = default;

namespace {

// GCC's switch to keep the scalar transposes scalar (see gather_shuffled); clang, used for the
// fuzzers, has no such attribute.
#if defined(__GNUC__) && !defined(__clang__)
#define ROCPROF_SCALAR_LOOP __attribute__((optimize("no-tree-vectorize")))
#else
#define ROCPROF_SCALAR_LOOP
#endif

// Column gather (and shuffle) with the element width known at compile time, so every copy
// is a plain load and store.
template <std::size_t kWidth>
void gather(const std::byte* rows, std::size_t row_size, std::size_t row_count, std::byte* out) {
  for (std::size_t r = 0; r < row_count; ++r)
    std::memcpy(out + r * kWidth, rows + r * row_size, kWidth);
}

// Transposes an 8x8 byte matrix held as 8 little-endian words: afterwards byte i of word b
// is what byte b of word i was. Three rounds of masked swaps (blocks of 4, 2, 1 bytes).
inline void transpose_bytes_8x8(std::uint64_t (&w)[8]) {
  for (int i = 0; i < 4; ++i) {
    const std::uint64_t t = ((w[i] >> 32) ^ w[i + 4]) & 0x00000000FFFFFFFFULL;
    w[i] ^= t << 32;
    w[i + 4] ^= t;
  }
  for (int i : {0, 1, 4, 5}) {
    const std::uint64_t t = ((w[i] >> 16) ^ w[i + 2]) & 0x0000FFFF0000FFFFULL;
    w[i] ^= t << 16;
    w[i + 2] ^= t;
  }
  for (int i : {0, 2, 4, 6}) {
    const std::uint64_t t = ((w[i] >> 8) ^ w[i + 1]) & 0x00FF00FF00FF00FFULL;
    w[i] ^= t << 8;
    w[i + 1] ^= t;
  }
}

#if defined(__SSE2__)
// Sixteen rows' fields (of 4 or 8 bytes) to sixteen bytes of each byte plane, in registers.
// Register j starts with rows j * 16/kWidth onwards; a byte's place is then the 4 row bits
// followed by the byte-index bits, read as (register, position). Each round of byte
// unpacks rotates that place left by one bit, so four rounds leave the byte index in front:
// register b holds plane b, rows 0-15 in order. Returns the rows done (a multiple of 16).
template <std::size_t kWidth>
std::size_t gather_shuffled_sse2(const std::byte* rows, std::size_t row_size, std::size_t row_count,
                                 std::size_t chunk_rows, std::byte* out) {
  static_assert(kWidth == 4 || kWidth == 8);
  constexpr std::size_t kBlock = 16;
  constexpr std::size_t kHalf = kWidth / 2;
  std::size_t r = 0;
  for (; r + kBlock <= row_count; r += kBlock) {
    const std::byte* first = rows + r * row_size;
    __m128i x[kWidth];
    for (std::size_t j = 0; j < kWidth; ++j) {
      if constexpr (kWidth == 8) {
        // NOLINTBEGIN(cppcoreguidelines-pro-type-reinterpret-cast): unaligned 8-byte loads
        const __m128i low =
            _mm_loadl_epi64(reinterpret_cast<const __m128i*>(first + (2 * j) * row_size));
        x[j] = _mm_castpd_si128(
            _mm_loadh_pd(_mm_castsi128_pd(low),
                         reinterpret_cast<const double*>(first + (2 * j + 1) * row_size)));
        // NOLINTEND(cppcoreguidelines-pro-type-reinterpret-cast)
      } else {
        std::int32_t field[4];
        for (std::size_t k = 0; k < 4; ++k)
          std::memcpy(&field[k], first + (4 * j + k) * row_size, 4);
        x[j] = _mm_set_epi32(field[3], field[2], field[1], field[0]);
      }
    }
    // Fully unrolled, so that the sixteen values stay in registers.
#pragma GCC unroll 4
    for (int round = 0; round < 4; ++round) {
      __m128i y[kWidth];
#pragma GCC unroll 4
      for (std::size_t i = 0; i < kHalf; ++i) {
        y[2 * i] = _mm_unpacklo_epi8(x[i], x[i + kHalf]);
        y[2 * i + 1] = _mm_unpackhi_epi8(x[i], x[i + kHalf]);
      }
#pragma GCC unroll 8
      for (std::size_t i = 0; i < kWidth; ++i) x[i] = y[i];
    }
    for (std::size_t b = 0; b < kWidth; ++b)
      // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): an unaligned store
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + b * chunk_rows + r), x[b]);
  }
  return r;
}
#endif

// Scalar on purpose: vectorising the transpose makes it reload the words just stored, which
// stalls on store forwarding and was slower. The SSE2 path above keeps the words in
// registers instead and does sixteen rows at a time; this finishes what it leaves.
template <std::size_t kWidth>
ROCPROF_SCALAR_LOOP void gather_shuffled(const std::byte* rows, std::size_t row_size,
                                         std::size_t row_count, std::size_t chunk_rows,
                                         std::byte* out) {
  // Eight rows at a time: their fields become eight words, one transpose turns them into
  // eight bytes of each byte plane, stored with one 8-byte write per plane.
  constexpr std::size_t kBlock = 8;
  std::size_t r = 0;
#if defined(__SSE2__)
  r = gather_shuffled_sse2<kWidth>(rows, row_size, row_count, chunk_rows, out);
#endif
  for (; r + kBlock <= row_count; r += kBlock) {
    std::uint64_t words[kBlock] = {};
    for (std::size_t i = 0; i < kBlock; ++i)
      std::memcpy(&words[i], rows + (r + i) * row_size, kWidth);
    transpose_bytes_8x8(words);
    for (std::size_t b = 0; b < kWidth; ++b)
      std::memcpy(out + b * chunk_rows + r, &words[b], kBlock);
  }
  for (; r < row_count; ++r) {
    const std::byte* field = rows + r * row_size;
    for (std::size_t b = 0; b < kWidth; ++b) out[b * chunk_rows + r] = field[b];
  }
}

template <std::size_t kWidth>
void scatter(const std::byte* column, std::size_t count, std::byte* rows, std::size_t row_size) {
  for (std::size_t r = 0; r < count; ++r)
    std::memcpy(rows + r * row_size, column + r * kWidth, kWidth);
}

#if defined(__SSE2__)
// Stores the kFields fields of kBytes (2 or 4) bytes that `value` holds side by side, lowest
// first, into consecutive rows.
template <std::size_t kBytes, int kFields>
inline void store_fields(__m128i value, std::byte* out, std::size_t row_size) {
#pragma GCC unroll 8
  for (int i = 0; i < kFields; ++i) {
    const auto bits = static_cast<std::uint32_t>(_mm_cvtsi128_si32(value));
    std::memcpy(out + i * row_size, &bits, kBytes);
    value = _mm_srli_si128(value, kBytes);
  }
}

// Sixteen rows of byte planes to sixteen fields in SSE registers: interleaving pairs of planes
// byte-wise, then the pairs 16-bit-wise, then the quads 32-bit-wise, leaves whole fields side
// by side. Returns the number of rows done (a multiple of 16).
template <std::size_t kWidth>
std::size_t scatter_shuffled_sse2(const std::byte* image, std::size_t chunk_rows, std::size_t count,
                                  std::byte* rows, std::size_t row_size) {
  static_assert(kWidth == 2 || kWidth == 4 || kWidth == 8);
  constexpr std::size_t kBlock = 16;
  std::size_t r = 0;
  for (; r + kBlock <= count; r += kBlock) {
    __m128i planes[kWidth];
#pragma GCC unroll 8
    for (std::size_t b = 0; b < kWidth; ++b)
      // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): an unaligned vector load
      planes[b] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(image + b * chunk_rows + r));
    // pairs[2k] / pairs[2k+1]: bytes 2k and 2k+1 of rows 0-7 / 8-15.
    __m128i pairs[kWidth];
#pragma GCC unroll 8
    for (std::size_t k = 0; k < kWidth / 2; ++k) {
      pairs[2 * k] = _mm_unpacklo_epi8(planes[2 * k], planes[2 * k + 1]);
      pairs[2 * k + 1] = _mm_unpackhi_epi8(planes[2 * k], planes[2 * k + 1]);
    }
    std::byte* out = rows + r * row_size;
    if constexpr (kWidth == 2) {
      store_fields<2, 8>(pairs[0], out, row_size);
      store_fields<2, 8>(pairs[1], out + 8 * row_size, row_size);
    } else {
      // quads[q]: bytes 0-3 (and 4-7 in quads[4 + q]) of rows 4q .. 4q+3.
      __m128i quads[8];
#pragma GCC unroll 8
      for (std::size_t k = 0; k < kWidth / 4; ++k) {
        const __m128i low = pairs[4 * k];         // bytes 4k, 4k+1 of rows 0-7
        const __m128i low_hi = pairs[4 * k + 1];  // of rows 8-15
        const __m128i high = pairs[4 * k + 2];    // bytes 4k+2, 4k+3 of rows 0-7
        const __m128i high_hi = pairs[4 * k + 3];
        quads[4 * k + 0] = _mm_unpacklo_epi16(low, high);
        quads[4 * k + 1] = _mm_unpackhi_epi16(low, high);
        quads[4 * k + 2] = _mm_unpacklo_epi16(low_hi, high_hi);
        quads[4 * k + 3] = _mm_unpackhi_epi16(low_hi, high_hi);
      }
      if constexpr (kWidth == 4) {
#pragma GCC unroll 4
        for (std::size_t q = 0; q < 4; ++q)
          store_fields<4, 4>(quads[q], out + q * 4 * row_size, row_size);
      } else {
#pragma GCC unroll 8
        for (int q = 0; q < 4; ++q) {
          const __m128i first_two = _mm_unpacklo_epi32(quads[q], quads[4 + q]);
          const __m128i last_two = _mm_unpackhi_epi32(quads[q], quads[4 + q]);
          // NOLINTBEGIN(cppcoreguidelines-pro-type-reinterpret-cast): unaligned 8-byte stores
          _mm_storel_epi64(reinterpret_cast<__m128i*>(out + (q * 4 + 0) * row_size), first_two);
          _mm_storeh_pd(reinterpret_cast<double*>(out + (q * 4 + 1) * row_size),
                        _mm_castsi128_pd(first_two));
          _mm_storel_epi64(reinterpret_cast<__m128i*>(out + (q * 4 + 2) * row_size), last_two);
          _mm_storeh_pd(reinterpret_cast<double*>(out + (q * 4 + 3) * row_size),
                        _mm_castsi128_pd(last_two));
          // NOLINTEND(cppcoreguidelines-pro-type-reinterpret-cast)
        }
      }
    }
  }
  return r;
}
#endif

// The reverse of gather_shuffled: eight bytes of each plane, one transpose, eight fields
// (after the SSE2 path has done what it can in blocks of sixteen).
template <std::size_t kWidth>
ROCPROF_SCALAR_LOOP void scatter_shuffled(const std::byte* image, std::size_t chunk_rows,
                                          std::size_t first, std::size_t count, std::byte* rows,
                                          std::size_t row_size) {
  constexpr std::size_t kBlock = 8;
  std::size_t r = 0;
#if defined(__SSE2__)
  r = scatter_shuffled_sse2<kWidth>(image + first, chunk_rows, count, rows, row_size);
#endif
  for (; r + kBlock <= count; r += kBlock) {
    std::uint64_t words[kBlock] = {};
    for (std::size_t b = 0; b < kWidth; ++b)
      std::memcpy(&words[b], image + b * chunk_rows + first + r, kBlock);
    transpose_bytes_8x8(words);
    for (std::size_t i = 0; i < kBlock; ++i)
      std::memcpy(rows + (r + i) * row_size, &words[i], kWidth);
  }
  for (; r < count; ++r)
    for (std::size_t b = 0; b < kWidth; ++b)
      rows[r * row_size + b] = image[b * chunk_rows + first + r];
}

}  // namespace

void scatter_column(const std::byte* image, bool shuffled, std::size_t width,
                    std::size_t chunk_rows, std::size_t first, std::size_t count, std::byte* rows,
                    std::size_t row_size, std::size_t offset) noexcept {
  std::byte* field = rows + offset;
  if (shuffled && width > 1) {
    switch (width) {
      case 2:
        return scatter_shuffled<2>(image, chunk_rows, first, count, field, row_size);
      case 4:
        return scatter_shuffled<4>(image, chunk_rows, first, count, field, row_size);
      case 8:
        return scatter_shuffled<8>(image, chunk_rows, first, count, field, row_size);
      default:
        for (std::size_t r = 0; r < count; ++r)
          for (std::size_t b = 0; b < width; ++b)
            field[r * row_size + b] = image[b * chunk_rows + first + r];
        return;
    }
  }
  const std::byte* column = image + first * width;
  switch (width) {
    case 1:
      return scatter<1>(column, count, field, row_size);
    case 2:
      return scatter<2>(column, count, field, row_size);
    case 4:
      return scatter<4>(column, count, field, row_size);
    case 8:
      return scatter<8>(column, count, field, row_size);
    default:
      for (std::size_t r = 0; r < count; ++r)
        std::memcpy(field + r * row_size, column + r * width, width);
  }
}

void scatter_packed_field(const std::byte* image, std::size_t element_size,
                          std::size_t packed_offset, std::size_t width, std::size_t first,
                          std::size_t count, std::byte* rows, std::size_t row_size,
                          std::size_t offset) noexcept {
  const std::byte* source = image + first * element_size + packed_offset;
  std::byte* field = rows + offset;
  for (std::size_t r = 0; r < count; ++r)
    std::memcpy(field + r * row_size, source + r * element_size, width);
}

void ChunkEncoder::split_columns(const std::byte* rows, std::size_t row_size,
                                 std::span<const Field> fields, std::size_t row_count,
                                 std::size_t chunk_rows) {
  const bool shuffle = compression_.codec != Codec::kNone;
  image_offsets_.resize(fields.size());
  image_widths_.resize(fields.size());
  std::size_t total = 0;
  for (std::size_t f = 0; f < fields.size(); ++f) {
    image_offsets_[f] = total;
    image_widths_[f] = fields[f].width;
    total += chunk_rows * fields[f].width;
  }
  images_.resize(total);
  image_rows_ = chunk_rows;
  for (std::size_t f = 0; f < fields.size(); ++f) {
    const std::size_t width = fields[f].width;
    std::byte* out = images_.data() + image_offsets_[f];
    // Padding rows are zero (per byte plane when shuffled).
    if (row_count < chunk_rows) {
      if (shuffle && width > 1)
        for (std::size_t b = 0; b < width; ++b)
          std::memset(out + b * chunk_rows + row_count, 0, chunk_rows - row_count);
      else
        std::memset(out + row_count * width, 0, (chunk_rows - row_count) * width);
    }
  }
  // 256 rows of at most 128 bytes stay in L1 while every field is taken from them.
  constexpr std::size_t kRowsPerBlock = 256;
  for (std::size_t first = 0; first < row_count; first += kRowsPerBlock) {
    const std::size_t count = std::min(kRowsPerBlock, row_count - first);
    const std::byte* block = rows + first * row_size;
    for (std::size_t f = 0; f < fields.size(); ++f) {
      const std::byte* source = block + fields[f].offset;
      std::byte* image = images_.data() + image_offsets_[f];
      switch (fields[f].width) {
        case 1:
          gather<1>(source, row_size, count, image + first);
          break;
        case 4:
          if (shuffle)
            gather_shuffled<4>(source, row_size, count, chunk_rows, image + first);
          else
            gather<4>(source, row_size, count, image + first * 4);
          break;
        default:
          if (shuffle)
            gather_shuffled<8>(source, row_size, count, chunk_rows, image + first);
          else
            gather<8>(source, row_size, count, image + first * 8);
          break;
      }
    }
  }
}

std::span<const std::byte> ChunkEncoder::encoded(std::size_t field) {
  const std::span<const std::byte> image(images_.data() + image_offsets_[field],
                                         image_widths_[field] * image_rows_);
  if (compression_.codec == Codec::kNone) return image;
  return compress(image);
}

std::span<const std::byte> ChunkEncoder::encode_packed(const std::byte* rows, std::size_t row_size,
                                                       std::span<const Field> fields,
                                                       std::size_t row_count,
                                                       std::size_t chunk_rows) {
  if (compression_.codec != Codec::kNone) {
    // Shuffled over the packed row, byte plane p holds byte p of every packed row; the
    // planes of one field are that field's shuffled column image. So the column images, one
    // after the other, are exactly the shuffled chunk.
    split_columns(rows, row_size, fields, row_count, chunk_rows);
    return compress(images_);
  }
  std::size_t packed = 0;
  for (const Field& field : fields) packed += field.width;
  images_.resize(chunk_rows * packed);
  std::byte* out = images_.data();
  for (std::size_t r = 0; r < row_count; ++r) {
    const std::byte* row = rows + r * row_size;
    for (const Field& field : fields) {
      // Widths known at compile time: each copy is one load and store.
      switch (field.width) {
        case 1:
          *out = row[field.offset];
          break;
        case 4:
          std::memcpy(out, row + field.offset, 4);
          break;
        case 8:
          std::memcpy(out, row + field.offset, 8);
          break;
        default:
          std::memcpy(out, row + field.offset, field.width);
      }
      out += field.width;
    }
  }
  std::memset(out, 0, (chunk_rows - row_count) * packed);  // the rows past the table's end
  return images_;
}

std::span<const std::byte> ChunkEncoder::encode(std::span<const std::byte> raw,
                                                std::size_t element_size) {
  if (compression_.codec == Codec::kNone) return raw;
  std::span<const std::byte> input = raw;
  if (element_size > 1) {
    shuffled_.resize(raw.size());
    shuffle_bytes(raw, shuffled_, element_size);
    input = shuffled_;
  }
  return compress(input);
}

std::span<const std::byte> ChunkEncoder::compress(std::span<const std::byte> input) {
  if (compression_.codec == Codec::kZstd) {
    output_.resize(ZSTD_compressBound(input.size()));
    const std::size_t written =
        ZSTD_compress2(contexts_->zstd, output_.data(), output_.size(), input.data(), input.size());
    if (ZSTD_isError(written)) return {};
    return {output_.data(), written};
  }
  uLongf written = compressBound(static_cast<uLong>(input.size()));
  output_.resize(written);
  if (compress2(reinterpret_cast<Bytef*>(output_.data()), &written,
                reinterpret_cast<const Bytef*>(input.data()), static_cast<uLong>(input.size()),
                compression_.level) != Z_OK)
    return {};
  return {output_.data(), written};
}

std::uint32_t fletcher32(std::span<const std::byte> data) noexcept {
  // Blocks of at most 360 words keep the 32-bit sums from overflowing before they fold.
  constexpr std::size_t kBlockWords = 360;
  std::uint32_t low = 0;
  std::uint32_t high = 0;
  const auto byte = [&](std::size_t i) { return std::to_integer<std::uint32_t>(data[i]); };
  std::size_t words = data.size() / 2;
  std::size_t at = 0;
  while (words > 0) {
    const std::size_t block = std::min(words, kBlockWords);
    words -= block;
    for (std::size_t w = 0; w < block; ++w, at += 2) {
      low += (byte(at) << 8) | byte(at + 1);
      high += low;
    }
    low = (low & 0xFFFF) + (low >> 16);
    high = (high & 0xFFFF) + (high >> 16);
  }
  if (data.size() % 2 != 0) {
    low += byte(at) << 8;
    high += low;
    low = (low & 0xFFFF) + (low >> 16);
    high = (high & 0xFFFF) + (high >> 16);
  }
  low = (low & 0xFFFF) + (low >> 16);
  high = (high & 0xFFFF) + (high >> 16);
  return (high << 16) | low;
}

void append_fletcher32(std::vector<std::byte>& stored) {
  const std::uint32_t sum = fletcher32(stored);
  for (int shift = 0; shift < 32; shift += 8)
    stored.push_back(static_cast<std::byte>((sum >> shift) & 0xFF));
}

namespace {

// Whether `stored` ends with the Fletcher-32 checksum of the bytes before it. HDF5 also takes
// the checksum with the bytes of each 16-bit half swapped (what versions before 1.6.3 wrote).
bool fletcher32_holds(std::span<const std::byte> stored) noexcept {
  if (stored.size() < 4) return false;
  const std::span<const std::byte> data = stored.first(stored.size() - 4);
  std::uint32_t kept = 0;
  for (int i = 0; i < 4; ++i)
    kept |= std::to_integer<std::uint32_t>(stored[data.size() + static_cast<std::size_t>(i)])
            << (8 * i);
  const std::uint32_t sum = fletcher32(data);
  const std::uint32_t swapped = ((sum & 0x00FF00FFU) << 8) | ((sum & 0xFF00FF00U) >> 8);
  return kept == sum || kept == swapped;
}

}  // namespace

ColumnPipeline column_pipeline(hid_t dataset_creation, hid_t stored_type) {
  ColumnPipeline pipeline;
  if (H5Tget_class(stored_type) == H5T_COMPOUND) {
    // Packed rows: every member of more than one byte must be little-endian.
    const int members = H5Tget_nmembers(stored_type);
    for (int m = 0; m < members; ++m) {
      const hid_t member = H5Tget_member_type(stored_type, static_cast<unsigned>(m));
      if (H5Tget_size(member) > 1 && H5Tget_order(member) != H5T_ORDER_LE)
        pipeline.supported = false;
      H5Tclose(member);
    }
  } else if (H5Tget_size(stored_type) > 1 && H5Tget_order(stored_type) != H5T_ORDER_LE) {
    pipeline.supported = false;
  }
  const int count = H5Pget_nfilters(dataset_creation);
  if (count < 0) pipeline.supported = false;
  for (int i = 0; i < count; ++i) {
    unsigned flags = 0;
    std::size_t values = 0;
    unsigned config = 0;
    const H5Z_filter_t filter = H5Pget_filter2(dataset_creation, static_cast<unsigned>(i), &flags,
                                               &values, nullptr, 0, nullptr, &config);
    using enum ColumnPipeline::Filter;
    if (filter == H5Z_FILTER_SHUFFLE && i == 0)  // the writer shuffles first, then compresses
      pipeline.filters.push_back(kShuffle);
    else if (filter == kZstdFilterId)
      pipeline.filters.push_back(kZstd);
    else if (filter == H5Z_FILTER_DEFLATE)
      pipeline.filters.push_back(kDeflate);
    else if (filter == H5Z_FILTER_FLETCHER32 && i + 1 == count)  // over the stored bytes
      pipeline.filters.push_back(kFletcher32);
    else
      pipeline.supported = false;
  }
  return pipeline;
}

struct ChunkDecoder::Contexts {
  ZSTD_DCtx* zstd = ZSTD_createDCtx();
  ~Contexts() { ZSTD_freeDCtx(zstd); }
};

ChunkDecoder::ChunkDecoder() : contexts_(std::make_unique<Contexts>()) {}
ChunkDecoder::~ChunkDecoder() = default;

bool ChunkDecoder::decode(std::span<const std::byte> stored, unsigned filter_mask,
                          const ColumnPipeline& pipeline, std::size_t raw_size,
                          std::vector<std::byte>& image, bool& shuffled) {
  // The filters to undo, last applied first; a shuffle applied first is left to the caller.
  std::size_t steps[8];
  std::size_t step_count = 0;
  shuffled = false;
  for (std::size_t i = pipeline.filters.size(); i-- > 0;) {
    if ((filter_mask & (1U << i)) != 0) continue;  // skipped when the chunk was written
    if (i == 0 && pipeline.filters[i] == ColumnPipeline::Filter::kShuffle) {
      shuffled = true;
      break;
    }
    if (step_count == std::size(steps)) return false;
    steps[step_count++] = i;
  }
  std::span<const std::byte> data = stored;
  for (std::size_t k = 0; k < step_count; ++k) {
    if (pipeline.filters[steps[k]] == ColumnPipeline::Filter::kFletcher32) {
      // Checked, then dropped: damage to the stored bytes is found before any decoding.
      if (!fletcher32_holds(data)) return false;
      data = data.first(data.size() - 4);
      continue;
    }
    // The last step writes the caller's image; earlier ones alternate between our buffers.
    std::vector<std::byte>& out = k + 1 == step_count ? image : buffers_[k % 2];
    out.resize(raw_size);
    switch (pipeline.filters[steps[k]]) {
      case ColumnPipeline::Filter::kZstd: {
        const std::size_t size =
            ZSTD_decompressDCtx(contexts_->zstd, out.data(), out.size(), data.data(), data.size());
        if (ZSTD_isError(size) || size != raw_size) return false;
        break;
      }
      case ColumnPipeline::Filter::kDeflate: {
        uLongf size = raw_size;
        if (uncompress(reinterpret_cast<Bytef*>(out.data()), &size,
                       reinterpret_cast<const Bytef*>(data.data()),
                       static_cast<uLong>(data.size())) != Z_OK ||
            size != raw_size)
          return false;
        break;
      }
      case ColumnPipeline::Filter::kShuffle:
        return false;  // only first, and left to the caller (column_pipeline makes sure)
      case ColumnPipeline::Filter::kFletcher32:
        break;  // handled above
    }
    data = out;
  }
  if (data.size() != raw_size) return false;
  if (data.data() != image.data()) image.assign(data.begin(), data.end());  // stored as is
  return true;
}

}  // namespace rocprof::format
