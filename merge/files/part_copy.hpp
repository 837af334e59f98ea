// Copies byte ranges of files (the parts of a parallel merge) into an output that already has
// its full size, on several threads. Where the output's file system lets one buffered writer
// of a file in at a time (tmpfs, ext4, XFS, Btrfs take the file's lock for each write), the
// threads read the parts straight into a shared mapping of the output instead: page faults
// on one file run side by side. Elsewhere (Lustre, GPFS, NFS) writers of different ranges do
// not wait for each other, and each thread copies in the kernel (copy_file_range).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace rocprof::merge {

// `size` bytes of file `from`, from `read_at`, go to the output at `write_at`.
struct CopyPiece {
  std::string from;
  std::uint64_t read_at = 0;
  std::uint64_t write_at = 0;
  std::uint64_t size = 0;
};

struct PartCopyOptions {
  enum class Method : std::uint8_t { kAuto, kKernel, kMapped };
  // kAuto: kMapped on the file systems above when two or more writers copy at once (this
  // call's threads and other processes copying into the same output).
  Method method = Method::kAuto;
  std::size_t threads = 1;  // the bytes of all pieces are cut into this many equal runs
  // Other processes copying into the output at the same time (a parallel merge's others).
  std::size_t other_writers = 0;
  // Of the output mapped at once by each thread (a multiple of the page size): the pages a
  // thread has filled are unmapped before it maps more, so that they do not count towards the
  // process's resident memory for the rest of the copy.
  std::size_t window_bytes = std::size_t{4} << 20;
};

// Share `index` of `count` equal shares of the pieces' bytes, the pieces laid end to end in
// their order: the pieces (or parts of them) that fall in it. The processes of a merge split
// the parts so, and each process its share among its threads.
std::vector<CopyPiece> equal_share(std::span<const CopyPiece> pieces, std::size_t index,
                                   std::size_t count);

// Whether the file system holding `path` is one where writers of a file take turns.
bool writers_take_turns(const std::string& path);

// Copies every piece into `output` (pieces must not overlap in the output). Returns "" or the
// first problem, naming the file: a part that cannot be opened or is shorter than said, or an
// output that cannot take the bytes (a full file system).
std::string copy_pieces(const std::string& output, std::span<const CopyPiece> pieces,
                        const PartCopyOptions& options);

}  // namespace rocprof::merge
