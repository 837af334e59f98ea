#include "lib/runtime/hsa/hsa_api_intercept.hpp"

// Debian's hsa_api_trace.h finds its sibling headers by plain name only in this mode.
#define AMD_INTERNAL_BUILD 1
#include <hsa/hsa_api_trace.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string_view>

#include <rocprof-mpi/api_tables.h>
#include <roctracer/roctracer_hsa.h>

#include "lib/core/api_dispatch.hpp"
#include "lib/runtime/hsa/hsa_ops.hpp"

namespace rocprof::runtime::hsa {
namespace {

// The runtime's own entries, copied before ours replace them; the wrappers call these.
struct SavedTables {
  CoreApiTable core_;
  AmdExtTable amd_ext_;
  ImageExtTable image_ext_;
};
SavedTables g_saved{};
std::atomic<const HsaApiTable*> g_wrapped{nullptr};

// NOLINTBEGIN(cppcoreguidelines-macro-usage): hooks of the generated wrappers
#define ROCPROF_HSA_ORIGINAL(member, name) g_saved.member.name##_fn
#define ROCPROF_HSA_TRACING(id) rocprof::core::api_observed(ACTIVITY_DOMAIN_HSA_API, id)
#define ROCPROF_HSA_ENTER(id, data) rocprof::core::enter_api_call(ACTIVITY_DOMAIN_HSA_API, id, data)
#define ROCPROF_HSA_EXIT(scope, data) rocprof::core::exit_api_call(scope, data)
// NOLINTEND(cppcoreguidelines-macro-usage)

// NOLINTBEGIN: generated code, checked by the generator's tests and the compiler
#include "hsa_api_wrappers.inc"
// NOLINTEND

// How much of a runtime table may be read: its own size (minor_id, as the runtime sets it),
// capped at the size of the table this library was built against.
template <typename Table>
std::size_t usable_bytes(const Table* table) {
  if (table == nullptr) return 0;
  return std::min<std::size_t>(table->version.minor_id, sizeof(Table));
}

struct UsableBytes {
  std::size_t core_;
  std::size_t amd_ext_;
  std::size_t image_ext_;
};

}  // namespace

bool intercept_api_table(HsaApiTable* table) noexcept {
  if (table == nullptr) return false;
  const HsaApiTable* expected = nullptr;
  if (!g_wrapped.compare_exchange_strong(expected, table)) return expected == table;

  const UsableBytes usable{usable_bytes(table->core_), usable_bytes(table->amd_ext_),
                           usable_bytes(table->image_ext_)};
  if (usable.core_ != 0) std::memcpy(&g_saved.core_, table->core_, usable.core_);
  if (usable.amd_ext_ != 0) std::memcpy(&g_saved.amd_ext_, table->amd_ext_, usable.amd_ext_);
  if (usable.image_ext_ != 0)
    std::memcpy(&g_saved.image_ext_, table->image_ext_, usable.image_ext_);
  // Device work (HSA_OPS): queue creation and copies, where the wrappers call the runtime.
  intercept_device_work(g_saved.core_, usable.core_, g_saved.amd_ext_, usable.amd_ext_);

  // An entry is replaced only where the runtime's table holds it and the runtime filled it.
#define ROCPROF_HSA_INSTALL(member, name)                                               \
  if (offsetof(decltype(g_saved.member), name##_fn) + sizeof(void*) <= usable.member && \
      g_saved.member.name##_fn != nullptr)                                              \
    table->member->name##_fn = &rocprof_hsa_wrap_##name;
  ROCPROF_HSA_WRAPPED_LIST(ROCPROF_HSA_INSTALL)
#undef ROCPROF_HSA_INSTALL
  return true;
}

}  // namespace rocprof::runtime::hsa

extern "C" ROCTRACER_API int rocprof_mpi_intercept_api_table(const char* name, void** tables,
                                                             uint64_t table_count) {
  if (name == nullptr || (table_count != 0 && tables == nullptr)) return -1;
  if (std::string_view(name) != "hsa" || table_count == 0) return 0;
  if (!rocprof::runtime::hsa::intercept_api_table(static_cast<HsaApiTable*>(tables[0]))) {
    static std::atomic_flag told = ATOMIC_FLAG_INIT;
    if (!told.test_and_set())
      std::fputs("rocprof-mpi: a second HSA runtime's API table is not traced\n", stderr);
  }
  return 0;
}
