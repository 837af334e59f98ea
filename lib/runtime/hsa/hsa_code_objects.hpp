// The GPU code objects the process's HSA runtime has loaded, through the runtime's AMD loader
// extension (never loading a runtime into a process that has none), and their bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rocprof::runtime::hsa {

struct LoadedCodeObject {
  std::string uri;  // "file://PATH#offset=N&size=N" or "memory://PID#offset=0xA&size=N"
  std::uint64_t load_base = 0;
  std::uint64_t load_size = 0;
  std::int64_t load_delta = 0;
  bool from_memory = false;       // loaded from the application's memory, not a file
  std::uint64_t memory_base = 0;  // from_memory: where the application keeps it
  std::uint64_t memory_size = 0;
};

// What is loaded now; empty where the process has no HSA runtime (or it cannot tell).
std::vector<LoadedCodeObject> loaded_code_objects();

// A copy of the code object's bytes: from its file (the URI's range) or from the
// application's memory; empty when they cannot be read.
std::vector<char> code_object_bytes(const LoadedCodeObject& object);

}  // namespace rocprof::runtime::hsa
