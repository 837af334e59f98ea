// A file for what a merge process cannot keep in memory: made with a unique name in a
// directory and unlinked at once, so that nothing is left however the merge ends (a kill
// included). Writers append pieces at offsets handed out atomically; any thread may read.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace rocprof::merge {

class ScratchFile {
 public:
  // Throws std::runtime_error if the file cannot be made in `directory` ("" for here).
  explicit ScratchFile(const std::string& directory);
  ~ScratchFile();
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  // Appends `bytes`, returns where they start; safe on several threads at once. Throws
  // std::runtime_error on a write error (a full disk).
  std::uint64_t append(std::span<const std::byte> bytes);
  // Room for `bytes` at the end, returned as where it starts, for write_at to fill (a piece
  // written a part at a time stays whole when other threads append meanwhile).
  std::uint64_t claim(std::uint64_t bytes) noexcept {
    return end_.fetch_add(bytes, std::memory_order_relaxed);
  }
  // Writes `bytes` at `offset` (within room claimed); safe on several threads at once. Throws
  // std::runtime_error on a write error.
  void write_at(std::uint64_t offset, std::span<const std::byte> bytes) const;
  // Reads exactly bytes.size() bytes from `offset`; any thread. Throws std::runtime_error on
  // a read error or a short file.
  void read(std::uint64_t offset, std::span<std::byte> bytes) const;
  // Bytes appended so far.
  std::uint64_t size() const noexcept { return end_.load(std::memory_order_relaxed); }

 private:
  int fd_ = -1;
  std::atomic<std::uint64_t> end_{0};
};

}  // namespace rocprof::merge
