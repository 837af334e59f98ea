#include "merge/files/remove_on_signal.hpp"

#include <unistd.h>

#include <array>
#include <atomic>
#include <csignal>
#include <cstring>
#include <mutex>

namespace rocprof::merge {
namespace {

// The named files: the handler reads them with plain atomic loads (async-signal-safe).
std::array<std::atomic<const char*>, RemoveOnSignal::kSlots> g_paths{};

constexpr std::array kSignals = {SIGINT, SIGTERM, SIGHUP};
std::array<struct sigaction, kSignals.size()> g_previous{};

void remove_and_pass_on(int signal_number) {
  for (const std::atomic<const char*>& slot : g_paths)
    if (const char* path = slot.load(std::memory_order_acquire)) ::unlink(path);
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

RemoveOnSignal::RemoveOnSignal(const std::string& path)
    : path_(std::make_unique<char[]>(path.size() + 1)) {
  std::memcpy(path_.get(), path.c_str(), path.size() + 1);
  install_once();
  for (int i = 0; i < kSlots; ++i) {
    const char* empty = nullptr;
    if (g_paths.at(static_cast<std::size_t>(i))
            .compare_exchange_strong(empty, path_.get(), std::memory_order_acq_rel)) {
      slot_ = i;
      return;
    }
  }
}

RemoveOnSignal::~RemoveOnSignal() {
  if (slot_ >= 0)
    g_paths.at(static_cast<std::size_t>(slot_)).store(nullptr, std::memory_order_release);
}

}  // namespace rocprof::merge
