#include "merge/files/remove_on_signal.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <mutex>

namespace rocprof::merge {
namespace {

// The named files: the handler reads them with plain atomic loads (async-signal-safe).
// Bit 0 of a slot marks a directory (path buffers come from new[], aligned past 1 byte).
std::array<std::atomic<std::uintptr_t>, RemoveOnSignal::kSlots> g_paths{};
constexpr std::uintptr_t kDirectoryBit = 1;

// The files of a directory, then the directory, with system calls only (opendir and readdir
// allocate, which a signal handler must not): entries are listed with getdents64 and unlinked
// relative to the directory, listing again from the start until a pass removes nothing.
void remove_directory(const char* path) {
  const int fd = ::open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  alignas(8) char entries[4096];
  for (bool removed = true; removed;) {
    removed = false;
    ::lseek(fd, 0, SEEK_SET);
    for (;;) {
      const long bytes = ::syscall(SYS_getdents64, fd, entries, sizeof entries);
      if (bytes <= 0) break;
      for (long at = 0; at < bytes;) {
        // struct linux_dirent64: ino (8), offset (8), record length (2), type (1), name.
        unsigned short length = 0;
        std::memcpy(&length, entries + at + 16, sizeof length);
        const char* name = entries + at + 19;
        const bool dots =
            name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
        if (!dots && ::unlinkat(fd, name, 0) == 0) removed = true;
        at += length;
      }
    }
  }
  ::close(fd);
  ::rmdir(path);
}

constexpr std::array kSignals = {SIGINT, SIGTERM, SIGHUP};
std::array<struct sigaction, kSignals.size()> g_previous{};

void remove_and_pass_on(int signal_number) {
  for (const std::atomic<std::uintptr_t>& slot : g_paths) {
    const std::uintptr_t value = slot.load(std::memory_order_acquire);
    if (value == 0) continue;
    // NOLINTNEXTLINE(performance-no-int-to-ptr): the address stored below, kind bit cleared
    const auto* path = reinterpret_cast<const char*>(value & ~kDirectoryBit);
    if ((value & kDirectoryBit) != 0)
      remove_directory(path);
    else
      ::unlink(path);
  }
  for (std::size_t i = 0; i < kSignals.size(); ++i) {
    if (kSignals[i] != signal_number) continue;
    const struct sigaction& previous = g_previous[i];
    if (previous.sa_handler == SIG_IGN) return;
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-union-access): sigaction's own layout
    if ((previous.sa_flags & SA_SIGINFO) == 0 && previous.sa_handler != SIG_DFL) {
      previous.sa_handler(signal_number);
      return;
    }
    // The default action (or a three-argument handler, which cannot be called from here with
    // the right arguments): restore it and raise the signal again.
    ::sigaction(signal_number, &previous, nullptr);
    ::raise(signal_number);
  }
}

void install_once() {
  static std::once_flag installed;
  std::call_once(installed, [] {
    for (std::size_t i = 0; i < kSignals.size(); ++i) {
      struct sigaction action {};
      action.sa_handler = &remove_and_pass_on;
      sigemptyset(&action.sa_mask);
      ::sigaction(kSignals[i], &action, &g_previous[i]);
      if (g_previous[i].sa_handler == SIG_IGN)  // ignored (nohup): leave it so
        ::sigaction(kSignals[i], &g_previous[i], nullptr);
    }
  });
}

}  // namespace

RemoveOnSignal::RemoveOnSignal(const std::string& path, bool directory)
    : path_(std::make_unique<char[]>(path.size() + 1)) {
  std::memcpy(path_.get(), path.c_str(), path.size() + 1);
  install_once();
  const std::uintptr_t value =
      reinterpret_cast<std::uintptr_t>(path_.get()) | (directory ? kDirectoryBit : 0);
  for (int i = 0; i < kSlots; ++i) {
    std::uintptr_t empty = 0;
    if (g_paths.at(static_cast<std::size_t>(i))
            .compare_exchange_strong(empty, value, std::memory_order_acq_rel)) {
      slot_ = i;
      return;
    }
  }
}

RemoveOnSignal::~RemoveOnSignal() {
  if (slot_ >= 0) g_paths.at(static_cast<std::size_t>(slot_)).store(0, std::memory_order_release);
}

}  // namespace rocprof::merge
