// GPU code objects into the rank file (code_objects, kernel_symbols): each one the process's
// HSA runtime has loaded that is not recorded yet, with its kernels, so that the merge can
// name a dispatch that reached it only by its kernel object.
#pragma once

namespace rocprof::recorder {

// From the writer thread, before each flush: records what was loaded since the last call
// (nothing where the process has no HSA runtime).
void record_new_code_objects() noexcept;

}  // namespace rocprof::recorder
