// HSA API tracing: the runtime's API table entries are replaced by generated wrappers that
// report every call to ACTIVITY_DOMAIN_HSA_API (callbacks with hsa_api_data_t, and activity
// records when the domain is routed to a pool) around the runtime's own function.
#pragma once

struct HsaApiTable;

namespace rocprof::runtime::hsa {

// Wraps the entries of `table` (the core, AMD extension and image extension tables; the
// finalizer is left alone). Entries the runtime's tables are too small to hold, or left
// empty, are not touched. Idempotent for one table; a second, different table is refused
// (false) because the saved originals are process-wide.
bool intercept_api_table(HsaApiTable* table) noexcept;

}  // namespace rocprof::runtime::hsa
