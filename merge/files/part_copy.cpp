#include "merge/files/part_copy.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace rocprof::merge {
namespace {

// A problem with one file: the message names it.
struct CopyError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string errno_text(int code) { return std::generic_category().message(code); }

class Descriptor {
 public:
  Descriptor(const std::string& path, int flags) : fd_(::open(path.c_str(), flags | O_CLOEXEC)) {}
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const noexcept { return fd_; }
  // close() reports what the file system could not store; the destructor cannot.
  int close() noexcept { return ::close(std::exchange(fd_, -1)); }

 private:
  int fd_;
};

// In the kernel where it can (copy_file_range), through a buffer where it cannot (another
// file system for each file, an old kernel).
void copy_in_kernel(const CopyPiece& piece, int from, int to, const std::string& output) {
  auto read_at = static_cast<off64_t>(piece.read_at);
  auto write_at = static_cast<off64_t>(piece.write_at);
  std::uint64_t size = piece.size;
  std::vector<char> buffer;
  while (size > 0) {
    ssize_t done = ::copy_file_range(from, &read_at, to, &write_at, size, 0);
    if (done < 0 && (errno == EXDEV || errno == ENOSYS || errno == EOPNOTSUPP || errno == EINVAL)) {
      buffer.resize(std::size_t{4} << 20);
      done = ::pread(from, buffer.data(), std::min<std::uint64_t>(size, buffer.size()), read_at);
      if (done < 0 && errno != EINTR)
        throw CopyError(fmt::format("cannot read {}: {}", piece.from, errno_text(errno)));
      if (done > 0) {
        done = ::pwrite(to, buffer.data(), static_cast<std::size_t>(done), write_at);
        if (done < 0 && errno != EINTR)
          throw CopyError(fmt::format("cannot write {}: {}", output, errno_text(errno)));
        if (done > 0) {
          read_at += done;
          write_at += done;
        }
      }
    }
    if (done < 0 && errno == EINTR) continue;
    if (done < 0)  // copy_file_range does not say which side failed: both names
      throw CopyError(
          fmt::format("cannot copy {} into {}: {}", piece.from, output, errno_text(errno)));
    if (done == 0)
      throw CopyError(
          fmt::format("cannot copy {}: it ends before byte {}", piece.from, read_at + size));
    size -= static_cast<std::uint64_t>(done);
  }
}

// Straight into a shared mapping of the output, a window at a time.
void copy_mapped(const CopyPiece& piece, int from, int to, const std::string& output,
                 std::size_t window, const std::atomic<bool>& stop) {
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  std::uint64_t at = piece.write_at;  // in the output
  const std::uint64_t end = at + piece.size;
  std::uint64_t read_at = piece.read_at;
  while (at < end && !stop.load(std::memory_order_relaxed)) {
    const std::uint64_t map_begin = at / page * page;
    const std::uint64_t map_end = std::min(end, map_begin + window);
    const std::size_t map_size = map_end - map_begin;
    void* mapped = ::mmap(nullptr, map_size, PROT_READ | PROT_WRITE, MAP_SHARED, to,
                          static_cast<off_t>(map_begin));
    if (mapped == MAP_FAILED)
      throw CopyError(fmt::format("cannot write {}: {}", output, errno_text(errno)));
    auto* into = static_cast<char*>(mapped) + (at - map_begin);
    std::uint64_t left = map_end - at;
    int problem = 0;
    bool short_part = false;
    while (left > 0) {
      const ssize_t done = ::pread(from, into, left, static_cast<off_t>(read_at));
      if (done < 0 && errno == EINTR) continue;
      if (done < 0) {
        problem = errno;
        break;
      }
      if (done == 0) {
        short_part = true;
        break;
      }
      into += done;
      read_at += static_cast<std::uint64_t>(done);
      left -= static_cast<std::uint64_t>(done);
    }
    ::munmap(mapped, map_size);
    if (short_part)
      throw CopyError(
          fmt::format("cannot copy {}: it ends before byte {}", piece.from, read_at + left));
    // A page of the output that its file system cannot store (full) fails the read with
    // EFAULT: the kernel could not write the bytes into the mapping.
    if (problem == EFAULT)
      throw CopyError(
          fmt::format("cannot write {}: the file system could not store it (full?)", output));
    if (problem != 0)
      throw CopyError(fmt::format("cannot read {}: {}", piece.from, errno_text(problem)));
    at = map_end;
  }
}

}  // namespace

std::vector<CopyPiece> equal_share(std::span<const CopyPiece> pieces, std::size_t index,
                                   std::size_t count) {
  std::uint64_t total = 0;
  for (const CopyPiece& piece : pieces) total += piece.size;
  // (total * i) / count without overflow: the bytes are far below 2^64 / count.
  const auto bound = [&](std::uint64_t i) { return total / count * i + total % count * i / count; };
  const std::uint64_t begin = bound(index);
  const std::uint64_t end = bound(index + 1);
  std::vector<CopyPiece> share;
  std::uint64_t run = 0;  // where each piece starts in the run of all
  for (const CopyPiece& piece : pieces) {
    const std::uint64_t from = std::max(run, begin);
    const std::uint64_t to = std::min(run + piece.size, end);
    if (from < to)
      share.push_back(
          {piece.from, piece.read_at + (from - run), piece.write_at + (from - run), to - from});
    run += piece.size;
  }
  return share;
}

bool writers_take_turns(const std::string& path) {
  struct statfs about {};
  if (::statfs(path.c_str(), &about) != 0) return false;
  switch (static_cast<std::uint64_t>(about.f_type)) {
    case TMPFS_MAGIC:
    case EXT4_SUPER_MAGIC:  // ext2 and ext3 too
    case XFS_SUPER_MAGIC:
    case BTRFS_SUPER_MAGIC:
    case OVERLAYFS_SUPER_MAGIC:  // a container's root: its upper layer is one of these
      return true;
    default:
      return false;
  }
}

std::string copy_pieces(const std::string& output, std::span<const CopyPiece> pieces,
                        const PartCopyOptions& options) {
  std::uint64_t total = 0;
  for (const CopyPiece& piece : pieces) total += piece.size;
  if (total == 0) return {};
  const std::size_t threads = std::clamp<std::size_t>(options.threads, 1, 64);
  bool mapped = options.method == PartCopyOptions::Method::kMapped;
  if (options.method == PartCopyOptions::Method::kAuto)
    mapped = threads + options.other_writers > 1 && writers_take_turns(output);
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t window = std::max(page, options.window_bytes / page * page);

  // A mapping wants the output open for reading too.
  Descriptor to(output, mapped ? O_RDWR : O_WRONLY);
  if (to.get() < 0) return fmt::format("cannot write {}: {}", output, errno_text(errno));

  std::mutex lock;
  std::string problem;
  std::atomic<bool> stop{false};
  auto copy_run = [&](std::size_t index) {
    try {
      for (const CopyPiece& piece : equal_share(pieces, index, threads)) {
        if (stop.load(std::memory_order_relaxed)) return;
        const Descriptor from(piece.from, O_RDONLY);
        if (from.get() < 0)
          throw CopyError(
              fmt::format("cannot copy {} into {}: {}", piece.from, output, errno_text(errno)));
        if (mapped)
          copy_mapped(piece, from.get(), to.get(), output, window, stop);
        else
          copy_in_kernel(piece, from.get(), to.get(), output);
      }
    } catch (const std::exception& error) {
      const std::lock_guard guard(lock);
      if (problem.empty()) problem = error.what();
      stop = true;
    }
  };
  std::vector<std::thread> helpers;
  helpers.reserve(threads - 1);
  try {
    for (std::size_t t = 1; t < threads; ++t) helpers.emplace_back(copy_run, t);
  } catch (const std::system_error&) {
    // No more threads: those started and this one copy what they can; the rest below.
  }
  copy_run(0);
  for (std::thread& helper : helpers) helper.join();
  for (std::size_t t = helpers.size() + 1; t < threads && problem.empty(); ++t) copy_run(t);
  if (to.close() != 0 && problem.empty())
    problem = fmt::format("writing {} failed: {}", output, errno_text(errno));
  return problem;
}

}  // namespace rocprof::merge
