// The end of allocated space that an HDF5 file's superblock (version 2 or 3) records, written
// ahead of HDF5's own flush. A flush rewrites metadata in place one write after another, and
// HDF5 may write a table's chunk index, pointing into space allocated since the last flush,
// before the superblock that covers that space: a process killed between the two leaves a
// file whose readers refuse the index ("addr overflow"). Writing the new end first removes
// that state; the rest of the flush then writes the same superblock again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace rocprof::format {

// The superblock's size (versions 2 and 3, 8-byte offsets and lengths).
inline constexpr std::size_t kSuperblockBytes = 48;

// Bob Jenkins' lookup3 hash (hashlittle) over `bytes`: HDF5's checksum of its metadata.
std::uint32_t hdf5_metadata_checksum(std::span<const std::byte> bytes, std::uint32_t seed = 0);

// Whether `block` is a superblock of version 2 or 3 with 8-byte offsets and lengths and a
// checksum that matches; if so, its recorded end of allocated space is put in `end`.
bool read_superblock_end(std::span<const std::byte, kSuperblockBytes> block, std::uint64_t& end);

// Sets the recorded end of allocated space of such a superblock and its checksum.
void set_superblock_end(std::span<std::byte, kSuperblockBytes> block, std::uint64_t end);

// Raises the end that the superblock of the file open as `fd` records to `end`, if it is
// lower, by one write of the superblock; a superblock it does not recognise is left as it is.
// False only when that write failed (errno is set).
bool raise_superblock_end(int fd, std::uint64_t end);

}  // namespace rocprof::format
