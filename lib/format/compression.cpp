#include "lib/format/compression.hpp"

#include <zlib.h>
#include <zstd.h>

#include <charconv>

#include <fmt/format.h>

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
  const unsigned level = static_cast<unsigned>(compression.level);
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

std::span<const std::byte> ChunkEncoder::encode(std::span<const std::byte> raw,
                                                std::size_t element_size) {
  if (compression_.codec == Codec::kNone) return raw;
  std::span<const std::byte> input = raw;
  if (element_size > 1) {
    shuffled_.resize(raw.size());
    shuffle_bytes(raw, shuffled_, element_size);
    input = shuffled_;
  }
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

}  // namespace rocprof::format
