#pragma once
// Binding a function of a library loaded at run time (the GPU management libraries).

#include <dlfcn.h>

namespace rocprof::device {

// `function` set to `symbol` of `library`; false when the library lacks it.
template <typename Function>
bool bind_symbol(void* library, const char* symbol, Function& function) {
  function = reinterpret_cast<Function>(::dlsym(library, symbol));
  return function != nullptr;
}

}  // namespace rocprof::device
