// Cost of rocprofiler_register_library_api_table with no tool in the process (what every ROCm
// runtime pays at initialisation): each of the 9 accepted library names registered 8 times
// (the most instances one may have), each call timed on its own. Prints the median and the
// minimum in ns. Run it a few times: build/tests/register_cost
#include <rocprofiler-register/rocprofiler-register.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

ROCPROFILER_REGISTER_DEFINE_IMPORT(hsa, 10000)
ROCPROFILER_REGISTER_DEFINE_IMPORT(hip, 10000)
ROCPROFILER_REGISTER_DEFINE_IMPORT(hip_compiler, 10000)
ROCPROFILER_REGISTER_DEFINE_IMPORT(roctx, 10000)
ROCPROFILER_REGISTER_DEFINE_IMPORT(rccl, 10000)
ROCPROFILER_REGISTER_DEFINE_IMPORT(rocdecode, 10000)
ROCPROFILER_REGISTER_DEFINE_IMPORT(rocjpeg, 10000)
ROCPROFILER_REGISTER_DEFINE_IMPORT(ompt, 10000)
ROCPROFILER_REGISTER_DEFINE_IMPORT(hip_runtime, 10000)

int main() {
  struct Library {
    const char* name;
    rocprofiler_register_import_func_t import;
  };
  const Library libraries[] = {
      {"hsa", &rocprofiler_register_import_hsa},
      {"hip", &rocprofiler_register_import_hip},
      {"hip_compiler", &rocprofiler_register_import_hip_compiler},
      {"roctx", &rocprofiler_register_import_roctx},
      {"rccl", &rocprofiler_register_import_rccl},
      {"rocdecode", &rocprofiler_register_import_rocdecode},
      {"rocjpeg", &rocprofiler_register_import_rocjpeg},
      {"ompt", &rocprofiler_register_import_ompt},
      {"hip_runtime", &rocprofiler_register_import_hip_runtime},
  };
  static int table = 0;
  void* tables[] = {&table};
  std::vector<double> times;
  int unexpected = 0;
  for (int instance = 0; instance < 8; ++instance)
    for (const Library& library : libraries) {
      rocprofiler_register_library_indentifier_t id{};
      const auto begin = std::chrono::steady_clock::now();
      const auto status = rocprofiler_register_library_api_table(library.name, library.import,
                                                                 10000, tables, 1, &id);
      const auto end = std::chrono::steady_clock::now();
      unexpected += status != ROCP_REG_NO_TOOLS;
      times.push_back(std::chrono::duration<double, std::nano>(end - begin).count());
    }
  std::sort(times.begin(), times.end());
  std::printf("%zu calls, no tool: median %.0f ns, min %.0f ns%s\n", times.size(),
              times[times.size() / 2], times.front(),
              unexpected != 0 ? " (some did not return NO_TOOLS)" : "");
  return unexpected;
}
