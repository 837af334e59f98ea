// Readable kernel names for the rank file.
#pragma once

#include <string>

namespace rocprof::recorder {

// A C++ symbol's readable name ("void scale<float>(float*, int)"); other names unchanged,
// nullptr as "".
std::string demangle(const char* name);

}  // namespace rocprof::recorder
