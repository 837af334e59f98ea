#include "lib/recorder/code_object_recording.hpp"

#include <set>
#include <string>
#include <utility>
#include <vector>

#include <rocprof-mpi/pool_write.h>

#include "lib/core/clock.hpp"
#include "lib/device/code_object_symbols.hpp"
#include "lib/recorder/private_write.hpp"
#include "lib/runtime/hsa/hsa_code_objects.hpp"

namespace rocprof::recorder {

void record_new_code_objects() noexcept {
  // The writer thread's alone: the code objects recorded so far, by URI and load base.
  static std::set<std::pair<std::string, std::uint64_t>> recorded;
  try {
    roctracer_pool_t* pool = recording_pool();
    if (pool == nullptr) return;
    // The runtime calls made here are the recorder's, not the application's: not traced.
    rocprof_mpi_set_thread_tracing(0);
    const std::vector<runtime::hsa::LoadedCodeObject> loaded = runtime::hsa::loaded_code_objects();
    rocprof_mpi_set_thread_tracing(1);
    for (const runtime::hsa::LoadedCodeObject& object : loaded) {
      if (!recorded.emplace(object.uri, object.load_base).second) continue;
      const std::uint64_t seen = core::now_ns();
      write_private_into<format::CodeObjectRow>(pool, kCodeObjectDomain, object.uri.c_str(),
                                                [&](format::CodeObjectRow& row) {
                                                  row.load_base = object.load_base;
                                                  row.load_size = object.load_size;
                                                  row.load_delta = object.load_delta;
                                                  row.first_seen_ns = seen;
                                                });
      const auto bytes = runtime::hsa::code_object_bytes(object);
      for (const auto& kernel : device::kernel_symbols(bytes)) {
        const std::uint64_t kernel_object =
            kernel.second + static_cast<std::uint64_t>(object.load_delta);
        write_private_into<format::KernelSymbolRow>(pool, kKernelSymbolDomain, kernel.first.c_str(),
                                                    [&](format::KernelSymbolRow& row) {
                                                      row.kernel_object = kernel_object;
                                                      row.load_base = object.load_base;
                                                    });
      }
    }
  } catch (...) {
    // Out of memory listing them: the dispatches keep their addresses.
  }
}

}  // namespace rocprof::recorder
