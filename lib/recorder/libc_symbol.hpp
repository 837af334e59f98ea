// The C library's own definition of a function this library interposes.
//
// dlsym(RTLD_NEXT) finds the next definition after ours in the lookup order, which is the C
// library when the recorder is preloaded first. When it is not first (for instance loaded as
// a dependency of another preloaded library, after libc in the order), RTLD_NEXT finds
// nothing; the definition is then taken from libc.so.6 itself.
#pragma once

#include <dlfcn.h>

namespace rocprof::recorder {

inline void* libc_symbol(const char* name) noexcept {
  if (void* next = dlsym(RTLD_NEXT, name)) return next;
  void* libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
  return libc != nullptr ? dlsym(libc, name) : nullptr;
}

}  // namespace rocprof::recorder
