// _exit() and _Exit() skip atexit handlers, so the recorder's close would never run: an MPI
// library's fatal error handler, a shell (dash ends with _exit) and programs that skip their
// own clean-up end this way. They are interposed to close the file as at a fatal signal
// (bounded by the signal timeout; a descendant that recorded nothing leaves no file) and to
// give back the disk space reserved past the file's end, which nothing else would free.
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>

#include "lib/recorder/libc_symbol.hpp"
#include "lib/recorder/recorder.hpp"

namespace {

using ExitFn = void (*)(int);

[[noreturn]] void leave(const char* name, int status) noexcept {
  rocprof::recorder::finish_at_quick_exit();
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
