// _exit() and _Exit() skip atexit handlers, so the recorder's close never runs: the file keeps
// what the last flush wrote (docs/RECORDER.md). They are interposed only to give back the
// disk space reserved past the file's end, which nothing else would free.
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>

#include "lib/recorder/libc_symbol.hpp"
#include "lib/recorder/recorder.hpp"

namespace {

using ExitFn = void (*)(int);

[[noreturn]] void leave(const char* name, int status) noexcept {
  rocprof::recorder::release_reservation_at_exit();
  if (const auto real = reinterpret_cast<ExitFn>(rocprof::recorder::libc_symbol(name)))
    real(status);
  for (;;) syscall(SYS_exit_group, status);
}

}  // namespace

// NOLINTBEGIN(readability-inconsistent-declaration-parameter-name)
extern "C" __attribute__((visibility("default"))) void _exit(int status) { leave("_exit", status); }

extern "C" __attribute__((visibility("default"))) void _Exit(int status) noexcept {
  leave("_Exit", status);
}
// NOLINTEND(readability-inconsistent-declaration-parameter-name)
