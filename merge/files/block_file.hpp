// An output file filled a block at a time: the caller fills one block while a helper thread
// writes the last, so the copy into the file system does not hold up encoding. Past the first
// 64 MiB the blocks go to the file with direct I/O (O_DIRECT) where the file system takes it:
// a multi-gigabyte trace then costs neither the copy into the page cache nor the kernel's
// throttling of a process with gigabytes of dirty pages, and does not push out what the rest
// of the node keeps cached. Small outputs, and the last bytes of any, go through the page cache.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "lib/format/background_worker.hpp"

namespace rocprof::merge {

class BlockFile {
 public:
  // kAuto: direct I/O past the first 64 MiB; kOn: from the first block (for tests); kOff:
  // never. Set by ROCPROF_MERGE_DIRECT_IO=auto|on|off (default auto).
  enum class DirectIo : std::uint8_t { kAuto, kOn, kOff };
  // Throws std::runtime_error naming the variable for any other value.
  static DirectIo direct_io_from_environment();

  explicit BlockFile(const std::string& path, DirectIo mode = direct_io_from_environment());
  ~BlockFile();  // after close(), or dropping the output's end on an error path
  BlockFile(const BlockFile&) = delete;
  BlockFile& operator=(const BlockFile&) = delete;

  // Room for `bytes` more; returns where to write them.
  std::uint8_t* reserve(std::size_t bytes) {
    if (used_ + bytes > filling_.capacity) make_room(bytes);
    return filling_.data.get() + used_;
  }
  void commit(const std::uint8_t* end) {
    used_ = static_cast<std::size_t>(end - filling_.data.get());
  }
  void close();  // writes the rest; throws std::runtime_error on I/O errors

  // Bytes that went to the file with direct I/O (valid after close()).
  std::uint64_t direct_bytes() const noexcept { return direct_bytes_; }

 private:
  // Blocks start at a page boundary in memory, as direct I/O wants.
  struct Block {
    struct Free {
      void operator()(std::uint8_t* data) const noexcept { std::free(data); }
    };
    std::unique_ptr<std::uint8_t[], Free> data;
    std::size_t capacity = 0;
    void grow(std::size_t bytes, std::size_t keep);
  };
  void make_room(std::size_t bytes);
  void flush();
  // On the helper thread (or in close(), once it is idle).
  void write_block(const std::uint8_t* data, std::size_t size);
  void try_direct();
  void leave_direct() noexcept;

  int fd_;
  std::string path_;
  DirectIo mode_;
  Block filling_;
  Block writing_;  // the block the helper is writing
  std::size_t used_ = 0;
  std::uint64_t handed_ = 0;  // bytes given to the helper: the file's length once it is idle
  // Set by the helper, read by the caller after waiting for it.
  bool direct_ = false;
  bool direct_refused_ = false;
  std::uint64_t direct_bytes_ = 0;
  format::BackgroundWorker writer_;  // last: waited for before the rest goes
};

}  // namespace rocprof::merge
