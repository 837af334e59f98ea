#include "lib/recorder/descriptor_guard.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <climits>
#include <utility>

#include "lib/recorder/libc_symbol.hpp"
#include "lib/recorder/recorder.hpp"

namespace rocprof::recorder {
namespace {

using CloseFn = int (*)(int);
using CloseRangeFn = int (*)(unsigned int, unsigned int, int);
using CloseFromFn = void (*)(int);

// The recorder holds one file per process (two, briefly, while a file is replaced).
constexpr std::size_t kSlots = 4;
// A slot is claimed by its number; the file's identity is written before the number is
// published. A guarded number whose descriptor no longer refers to that file (the recorder
// closed it, HDF5 closed it after a full disk) is not guarded any more: the application may
// have opened a file of its own under it.
struct Slot {
  std::atomic<int> fd{-1};
  dev_t device = 0;
  ino_t inode = 0;
};
std::array<Slot, kSlots> g_guarded;
std::atomic<bool> g_any{false};

bool same_file(const Slot& slot, int fd) noexcept {
  struct stat info {};
  return fstat(fd, &info) == 0 && info.st_dev == slot.device && info.st_ino == slot.inode;
}

CloseFn real_close() noexcept {
  static const auto function = reinterpret_cast<CloseFn>(libc_symbol("close"));
  return function;
}

CloseRangeFn real_close_range() noexcept {
  static const auto function = reinterpret_cast<CloseRangeFn>(libc_symbol("close_range"));
  return function;
}

CloseFromFn real_closefrom() noexcept {
  static const auto function = reinterpret_cast<CloseFromFn>(libc_symbol("closefrom"));
  return function;
}

// Guarded descriptors in [first, last], ascending; returns how many.
std::size_t guarded_in(unsigned first, unsigned last, std::array<unsigned, kSlots>& found) {
  std::size_t count = 0;
  for (const Slot& slot : g_guarded) {
    const int fd = slot.fd.load(std::memory_order_acquire);
    if (fd >= 0 && static_cast<unsigned>(fd) >= first && static_cast<unsigned>(fd) <= last &&
        same_file(slot, fd))
      found[count++] = static_cast<unsigned>(fd);
  }
  // Insertion sort: at most kSlots entries.
  for (std::size_t i = 1; i < count; ++i)
    for (std::size_t j = i; j > 0 && found[j - 1] > found[j]; --j)
      std::swap(found[j - 1], found[j]);
  return count;
}

// close_range over [first, last] without the guarded descriptors: the pieces between them.
int close_range_around(unsigned first, unsigned last, int flags) {
  const CloseRangeFn real = real_close_range();
  if (real == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  std::array<unsigned, kSlots> found{};
  const std::size_t count = on_recorder_thread() ? 0 : guarded_in(first, last, found);
  unsigned from = first;
  for (std::size_t i = 0; i < count; ++i) {
    if (found[i] > from && real(from, found[i] - 1, flags) != 0) return -1;
    from = found[i] + 1;
    if (found[i] == UINT_MAX) return 0;
  }
  return from <= last ? real(from, last, flags) : 0;
}

}  // namespace

void guard_descriptor(int fd) noexcept {
  struct stat info {};
  if (fd < 0 || fstat(fd, &info) != 0) return;
  // Claimed with a placeholder first, so that no reader sees the number before the identity.
  constexpr int kClaimed = -2;
  for (Slot& slot : g_guarded) {
    int expected = -1;
    if (slot.fd.compare_exchange_strong(expected, kClaimed, std::memory_order_acq_rel)) {
      slot.device = info.st_dev;
      slot.inode = info.st_ino;
      slot.fd.store(fd, std::memory_order_release);
      g_any.store(true, std::memory_order_release);
      return;
    }
  }
}

void unguard_descriptor(int fd) noexcept {
  if (fd < 0) return;
  for (Slot& slot : g_guarded) {
    int expected = fd;
    slot.fd.compare_exchange_strong(expected, -1, std::memory_order_acq_rel);
  }
}

bool descriptor_guarded(int fd) noexcept {
  if (fd < 0 || !g_any.load(std::memory_order_acquire)) return false;
  return std::any_of(g_guarded.begin(), g_guarded.end(), [fd](const Slot& slot) {
    return slot.fd.load(std::memory_order_acquire) == fd && same_file(slot, fd);
  });
}

}  // namespace rocprof::recorder

// The interposed functions. Parameter names differ from glibc's reserved ones on purpose.
// NOLINTBEGIN(readability-inconsistent-declaration-parameter-name)
extern "C" __attribute__((visibility("default"))) int close(int fd) {
  using namespace rocprof::recorder;
  if (descriptor_guarded(fd) && !on_recorder_thread()) {
    errno = EBADF;
    return -1;
  }
  const CloseFn real = real_close();
  if (real == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  return real(fd);
}

extern "C" __attribute__((visibility("default"))) int close_range(unsigned int first,
                                                                  unsigned int last,
                                                                  int flags) noexcept {
  using namespace rocprof::recorder;
  // Marking descriptors close-on-exec leaves them open: nothing to protect.
  if (!g_any.load(std::memory_order_acquire) || (flags & CLOSE_RANGE_CLOEXEC) != 0 ||
      first > last) {
    const CloseRangeFn real = real_close_range();
    if (real == nullptr) {
      errno = ENOSYS;
      return -1;
    }
    return real(first, last, flags);
  }
  return close_range_around(first, last, flags);
}

extern "C" __attribute__((visibility("default"))) void closefrom(int lowest) noexcept {
  using namespace rocprof::recorder;
  if (lowest < 0) lowest = 0;
  if (!g_any.load(std::memory_order_acquire)) {
    if (const CloseFromFn real = real_closefrom()) real(lowest);
    return;
  }
  if (close_range_around(static_cast<unsigned>(lowest), UINT_MAX, 0) == 0) return;
  // Without close_range (old kernels): one by one up to the descriptor limit.
  const long limit = sysconf(_SC_OPEN_MAX);
  for (long fd = lowest; fd < limit; ++fd) close(static_cast<int>(fd));
}
// NOLINTEND(readability-inconsistent-declaration-parameter-name)
