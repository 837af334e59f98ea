#include "lib/recorder/crash_signals.hpp"

#include <dlfcn.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>

#include "lib/recorder/libc_symbol.hpp"
#include "lib/recorder/recorder.hpp"

namespace rocprof::recorder {
namespace {

using SigactionFn = int (*)(int, const struct sigaction*, struct sigaction*);

constexpr std::array kHandledSignals = {SIGTERM, SIGINT, SIGQUIT, SIGABRT,
                                        SIGSEGV, SIGBUS, SIGFPE,  SIGILL};

bool handled(int signal_number) {
  for (int handled_signal : kHandledSignals)
    if (handled_signal == signal_number) return true;
  return false;
}

SigactionFn real_sigaction() {
  static const auto function = reinterpret_cast<SigactionFn>(libc_symbol("sigaction"));
  return function;
}

// What the application asked for, per signal; valid once installed. Written by the
// application's (rare) sigaction calls, read by the handler: a handler racing with a change
// sees the old or the new action, as it would with the kernel's.
struct sigaction g_application_actions[NSIG];
std::atomic<bool> g_installed{false};

void call_application(int signal_number, siginfo_t* info, void* context,
                      const struct sigaction& action) {
  if ((action.sa_flags & SA_SIGINFO) != 0)
    action.sa_sigaction(signal_number, info, context);
  else
    action.sa_handler(signal_number);
}

void on_fatal_signal(int signal_number, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  const struct sigaction action = g_application_actions[signal_number];
  const bool is_default = (action.sa_flags & SA_SIGINFO) == 0 && action.sa_handler == SIG_DFL;
  const bool is_ignored = (action.sa_flags & SA_SIGINFO) == 0 && action.sa_handler == SIG_IGN;
  if (is_ignored) {
    errno = saved_errno;
    return;
  }
  if (is_default) {
    flush_from_signal(/*close=*/true);
    // Die the way we would have: default action, signal pending until this handler returns
    // (for a fault, the same instruction faults again under the default action).
    struct sigaction default_action {};
    default_action.sa_handler = SIG_DFL;
    sigemptyset(&default_action.sa_mask);
    real_sigaction()(signal_number, &default_action, nullptr);
    raise(signal_number);
    errno = saved_errno;
    return;
  }
  flush_from_signal(/*close=*/false);
  if ((action.sa_flags & SA_RESETHAND) != 0) {
    g_application_actions[signal_number] = {};
    g_application_actions[signal_number].sa_handler = SIG_DFL;
  }
  errno = saved_errno;
  call_application(signal_number, info, context, action);
}

}  // namespace

void install_crash_handlers() noexcept {
  if (real_sigaction() == nullptr) return;
  for (int signal_number : kHandledSignals) {
    struct sigaction ours {};
    ours.sa_sigaction = on_fatal_signal;
    ours.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&ours.sa_mask);
    real_sigaction()(signal_number, &ours, &g_application_actions[signal_number]);
  }
  g_installed.store(true, std::memory_order_release);
}

}  // namespace rocprof::recorder

// Interposed so that handlers the application installs later chain behind ours instead of
// replacing them. Other signals, and everything before installation, pass straight through.
// Parameter names differ from glibc's reserved ones on purpose.
// NOLINTNEXTLINE(readability-inconsistent-declaration-parameter-name)
extern "C" __attribute__((visibility("default"))) int sigaction(int signal_number,
                                                                const struct sigaction* action,
                                                                struct sigaction* previous) {
  using namespace rocprof::recorder;
  if (!g_installed.load(std::memory_order_acquire) || signal_number <= 0 || signal_number >= NSIG ||
      !handled(signal_number)) {
    const SigactionFn real = real_sigaction();
    if (real == nullptr) {
      errno = ENOSYS;
      return -1;
    }
    return real(signal_number, action, previous);
  }
  if (previous != nullptr) *previous = g_application_actions[signal_number];
  if (action != nullptr) g_application_actions[signal_number] = *action;
  return 0;
}

// NOLINTNEXTLINE(readability-inconsistent-declaration-parameter-name)
extern "C" __attribute__((visibility("default"))) sighandler_t signal(int signal_number,
                                                                      sighandler_t handler) {
  struct sigaction action {};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // glibc's signal() has BSD semantics
  struct sigaction previous {};
  if (sigaction(signal_number, &action, &previous) != 0) return SIG_ERR;
  return previous.sa_handler;
}
