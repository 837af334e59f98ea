#include "lib/format/hdf5_superblock.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>

namespace rocprof::format {
namespace {

// Where the fields lie in a version 2 or 3 superblock: signature (8 bytes), version, size of
// offsets, size of lengths, flags, then four addresses (base, superblock extension, end of
// allocated space, root group's object header) and the checksum of everything before it.
constexpr std::size_t kVersionAt = 8;
constexpr std::size_t kOffsetSizeAt = 9;
constexpr std::size_t kLengthSizeAt = 10;
constexpr std::size_t kEndAt = 28;
constexpr std::size_t kChecksumAt = 44;
constexpr std::array<unsigned char, 8> kSignature{0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};

constexpr std::uint32_t rotate(std::uint32_t x, int k) { return (x << k) | (x >> (32 - k)); }

// A little-endian word of up to four bytes (lookup3 reads the last one to three bytes so).
std::uint32_t little_u32(const unsigned char* p, std::size_t count) {
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < count; ++i) value |= std::uint32_t{p[i]} << (8 * i);
  return value;
}

// The superblock's fields are little-endian, as this machine's words are (x86-64, as the
// rank files' native types assume).
template <typename T>
T load(std::span<const std::byte> block, std::size_t at) {
  T value{};
  std::memcpy(&value, block.data() + at, sizeof value);
  return value;
}

template <typename T>
void store(std::span<std::byte> block, std::size_t at, T value) {
  std::memcpy(block.data() + at, &value, sizeof value);
}

}  // namespace

std::uint32_t hdf5_metadata_checksum(std::span<const std::byte> bytes, std::uint32_t seed) {
  const auto* key = reinterpret_cast<const unsigned char*>(bytes.data());
  std::size_t length = bytes.size();
  std::uint32_t a = 0xdeadbeefU + static_cast<std::uint32_t>(length) + seed;
  std::uint32_t b = a;
  std::uint32_t c = a;
  // Twelve bytes at a time, the last one to twelve bytes apart (a final mix, never a plain mix).
  while (length > 12) {
    a += little_u32(key, 4);
    b += little_u32(key + 4, 4);
    c += little_u32(key + 8, 4);
    a -= c, a ^= rotate(c, 4), c += b;
    b -= a, b ^= rotate(a, 6), a += c;
    c -= b, c ^= rotate(b, 8), b += a;
    a -= c, a ^= rotate(c, 16), c += b;
    b -= a, b ^= rotate(a, 19), a += c;
    c -= b, c ^= rotate(b, 4), b += a;
    length -= 12;
    key += 12;
  }
  if (length == 0) return c;
  a += little_u32(key, std::min<std::size_t>(length, 4));
  if (length > 4) b += little_u32(key + 4, std::min<std::size_t>(length - 4, 4));
  if (length > 8) c += little_u32(key + 8, length - 8);
  c ^= b, c -= rotate(b, 14);
  a ^= c, a -= rotate(c, 11);
  b ^= a, b -= rotate(a, 25);
  c ^= b, c -= rotate(b, 16);
  a ^= c, a -= rotate(c, 4);
  b ^= a, b -= rotate(a, 14);
  c ^= b, c -= rotate(b, 24);
  return c;
}

bool read_superblock_end(std::span<const std::byte, kSuperblockBytes> block, std::uint64_t& end) {
  if (std::memcmp(block.data(), kSignature.data(), kSignature.size()) != 0) return false;
  const auto version = std::to_integer<unsigned>(block[kVersionAt]);
  if ((version != 2 && version != 3) || std::to_integer<unsigned>(block[kOffsetSizeAt]) != 8 ||
      std::to_integer<unsigned>(block[kLengthSizeAt]) != 8)
    return false;
  if (load<std::uint32_t>(block, kChecksumAt) != hdf5_metadata_checksum(block.first(kChecksumAt)))
    return false;
  end = load<std::uint64_t>(block, kEndAt);
  return true;
}

void set_superblock_end(std::span<std::byte, kSuperblockBytes> block, std::uint64_t end) {
  store<std::uint64_t>(block, kEndAt, end);
  store<std::uint32_t>(block, kChecksumAt, hdf5_metadata_checksum(block.first(kChecksumAt)));
}

bool raise_superblock_end(int fd, std::uint64_t end) {
  std::array<std::byte, kSuperblockBytes> block{};
  if (::pread(fd, block.data(), block.size(), 0) != static_cast<ssize_t>(block.size())) return true;
  std::uint64_t recorded = 0;
  if (!read_superblock_end(block, recorded) || recorded >= end) return true;
  // HDF5 refuses a file shorter than the end its superblock records: the file first reaches
  // that end (zeros, where the flush is about to write).
  struct stat about {};
  if (::fstat(fd, &about) != 0) return false;
  if (static_cast<std::uint64_t>(about.st_size) < end &&
      ::ftruncate(fd, static_cast<off_t>(end)) != 0)
    return false;
  set_superblock_end(block, end);
  // One write within the first page: a kill leaves it whole or not at all.
  return ::pwrite(fd, block.data(), block.size(), 0) == static_cast<ssize_t>(block.size());
}

}  // namespace rocprof::format
