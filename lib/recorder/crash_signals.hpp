// Fatal-signal handling (SIGTERM, SIGINT, SIGQUIT, SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL).
//
// The recorder's handler stays installed for the process lifetime; the application's own
// sigaction()/signal() calls for these signals are recorded instead of installed (this
// library interposes both) and its handlers are called from ours. On a signal:
//  - application handler: flush the file, then run the handler (the process goes on, or
//    ends, as the handler decides);
//  - ignored: nothing;
//  - default action: flush and close the file, restore the default and re-raise, so the
//    process ends by the same signal as it would have without us.
#pragma once

namespace rocprof::recorder {

// Installs the handlers; after this, interposed sigaction()/signal() calls are recorded.
void install_crash_handlers() noexcept;

}  // namespace rocprof::recorder
