#include "lib/recorder/demangle.hpp"

#include <cxxabi.h>

#include <cstdlib>

namespace rocprof::recorder {

std::string demangle(const char* name) {
  if (name == nullptr) return {};
  int status = 0;
  char* readable = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || readable == nullptr) return name;
  std::string result(readable);
  std::free(readable);  // NOLINT(cppcoreguidelines-no-malloc): __cxa_demangle's contract
  return result;
}

}  // namespace rocprof::recorder
