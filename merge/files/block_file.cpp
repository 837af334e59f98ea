#include "merge/files/block_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

namespace rocprof::merge {
namespace {

constexpr std::size_t kBlockBytes = std::size_t{4} << 20;
// Direct I/O wants file offsets, lengths and memory aligned to the device's logical block:
// 4 KiB covers 512-byte and 4 KiB devices.
constexpr std::size_t kAlignment = 4096;
constexpr std::uint64_t kDirectAfterBytes = std::uint64_t{64} << 20;

std::size_t round_up(std::size_t bytes) {
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

std::string error_text() { return std::generic_category().message(errno); }

}  // namespace

BlockFile::DirectIo BlockFile::direct_io_from_environment() {
  const char* value = std::getenv("ROCPROF_MERGE_DIRECT_IO");  // NOLINT(concurrency-mt-unsafe)
  if (value == nullptr || *value == '\0' || std::string_view(value) == "auto")
    return DirectIo::kAuto;
  if (std::string_view(value) == "on") return DirectIo::kOn;
  if (std::string_view(value) == "off") return DirectIo::kOff;
  throw std::runtime_error(
      fmt::format("ROCPROF_MERGE_DIRECT_IO is '{}': use auto (the default), on or off", value));
}

void BlockFile::Block::grow(std::size_t bytes, std::size_t keep) {
  const std::size_t size = round_up(bytes);
  auto* grown = static_cast<std::uint8_t*>(std::aligned_alloc(kAlignment, size));
  if (grown == nullptr) throw std::bad_alloc();
  if (keep != 0) std::memcpy(grown, data.get(), keep);
  data.reset(grown);
  capacity = size;
}

BlockFile::BlockFile(const std::string& path, DirectIo mode)
    // Never through a link: the merge creates its files exclusively first (the staged
    // output, parts), and a link put in their place since must not be followed.
    : fd_(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644)),
      path_(path),
      mode_(mode) {
  if (fd_ < 0) throw std::runtime_error(fmt::format("cannot write {}: {}", path, error_text()));
  filling_.grow(kBlockBytes, 0);
}

BlockFile::~BlockFile() {
  writer_.wait_quietly();  // it writes to fd_; an error was or will be reported by close()
  if (fd_ >= 0) ::close(fd_);
}

void BlockFile::make_room(std::size_t bytes) {
  flush();
  if (used_ + bytes > filling_.capacity) filling_.grow(used_ + bytes, used_);
}

void BlockFile::flush() {
  if (used_ == 0) return;
  writer_.wait();  // rethrows the last write's I/O error
  std::swap(filling_, writing_);
  if (filling_.capacity < writing_.capacity) filling_.grow(writing_.capacity, 0);
  // With direct I/O on, or to be turned on after this block, the block ends at an aligned file
  // offset; the bytes past it start the next block.
  bool turn_on = !direct_ && !direct_refused_ && mode_ != DirectIo::kOff &&
                 (mode_ == DirectIo::kOn || handed_ + used_ >= kDirectAfterBytes);
  std::size_t size = used_;
  if (direct_ || turn_on) {
    const std::uint64_t end = (handed_ + size) / kAlignment * kAlignment;
    size = end > handed_ ? static_cast<std::size_t>(end - handed_) : 0;
    if (size == 0 && handed_ % kAlignment != 0) turn_on = false;  // not at a boundary yet
  }
  used_ -= size;
  std::memcpy(filling_.data.get(), writing_.data.get() + size, used_);
  handed_ += size;
  writer_.start([this, size, turn_on] {
    write_block(writing_.data.get(), size);
    if (turn_on) try_direct();
  });
}

void BlockFile::try_direct() {
  const int flags = ::fcntl(fd_, F_GETFL);
  if (flags >= 0 && ::fcntl(fd_, F_SETFL, flags | O_DIRECT) == 0)
    direct_ = true;
  else
    direct_refused_ = true;  // tmpfs on older kernels, some network file systems
}

void BlockFile::leave_direct() noexcept {
  const int flags = ::fcntl(fd_, F_GETFL);
  if (flags >= 0) ::fcntl(fd_, F_SETFL, flags & ~O_DIRECT);
  direct_ = false;
}

void BlockFile::write_block(const std::uint8_t* data, std::size_t size) {
  std::size_t written = 0;
  while (written < size) {
    const ssize_t count = ::write(fd_, data + written, size - written);
    if (count < 0 && errno == EINTR) continue;
    if (count < 0 && errno == EINVAL && direct_) {
      // The file system took the flag but not this write: the rest through the page cache.
      leave_direct();
      direct_refused_ = true;
      continue;
    }
    if (count <= 0)
      throw std::runtime_error(
          fmt::format("writing {} failed: {}", path_, count == 0 ? "no progress" : error_text()));
    written += static_cast<std::size_t>(count);
    if (direct_) direct_bytes_ += static_cast<std::size_t>(count);
  }
}

void BlockFile::close() {
  writer_.wait();               // rethrows the last write's I/O error
  if (direct_) leave_direct();  // the tail is not a whole number of aligned blocks
  write_block(filling_.data.get(), used_);
  used_ = 0;
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0)
    throw std::runtime_error(fmt::format("writing {} failed: {}", path_, error_text()));
}

}  // namespace rocprof::merge
