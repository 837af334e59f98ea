// The extern "C" roctracer entry points: check arguments, translate to the core, never
// let an exception cross the C boundary.
#include <exception>
#include <new>
#include <string>

#include <rocprof-mpi/cuda_domains.h>
#include <rocprof-mpi/external_id.h>
#include <rocprof-mpi/pool_stats.h>
#include <roctracer/roctracer.h>
#include <roctracer/roctracer_ext.h>

#include "lib/core/activity_router.hpp"
#include "lib/core/callback_table.hpp"
#include "lib/core/clock.hpp"
#include "lib/core/domain_backends.hpp"
#include "lib/core/domain_table.hpp"
#include "lib/core/last_error.hpp"
#include "lib/core/record_activity.hpp"
#include "lib/core/roctx_bridge.hpp"
#include "lib/core/tracer_state.hpp"

using namespace rocprof::core;

namespace {

// Runs `body`, turning an escaped exception into a status.
template <typename Body>
roctracer_status_t guarded(Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return fail(ROCTRACER_STATUS_ERROR_MEMORY_ALLOCATION, "out of memory");
  } catch (const std::exception& error) {
    return fail(ROCTRACER_STATUS_ERROR, "internal error: {}", error.what());
  } catch (...) {
    return fail(ROCTRACER_STATUS_ERROR, "internal error");
  }
}

roctracer_status_t check_domain(std::uint32_t domain) {
  if (!is_known_domain(domain))
    return fail(ROCTRACER_STATUS_ERROR_INVALID_DOMAIN_ID, "unknown domain {}", domain);
  if (!is_supported_domain(domain))
    return fail(ROCTRACER_STATUS_ERROR_INVALID_DOMAIN_ID, "domain {} is not supported",
                domain_name(domain));
  return ROCTRACER_STATUS_SUCCESS;
}

// Domains whose runtimes make synchronous API calls that callbacks can observe.
bool has_api_callbacks(std::uint32_t domain) {
  return domain == ACTIVITY_DOMAIN_HSA_API || domain == ACTIVITY_DOMAIN_HIP_API ||
         domain == ACTIVITY_DOMAIN_ROCTX || domain == ACTIVITY_DOMAIN_HSA_EVT ||
         domain == ROCPROF_MPI_DOMAIN_CUDA_RUNTIME_API ||
         domain == ROCPROF_MPI_DOMAIN_CUDA_DRIVER_API;
}

roctracer_status_t check_callback_domain(std::uint32_t domain) {
  if (auto status = check_domain(domain); status != ROCTRACER_STATUS_SUCCESS) return status;
  if (!has_api_callbacks(domain))
    return fail(ROCTRACER_STATUS_ERROR_INVALID_DOMAIN_ID,
                "domain {} has no API callbacks (it only produces activity records)",
                domain_name(domain));
  return ROCTRACER_STATUS_SUCCESS;
}

roctracer_status_t check_op(std::uint32_t domain, std::uint32_t op) {
  if (!is_valid_op(domain, op))
    return fail(ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "op {} is not an operation of {}", op,
                domain_name(domain));
  return ROCTRACER_STATUS_SUCCESS;
}

// Hooks up the event source of a domain the first time something in it is enabled. Only
// CUDA's can fail (no CUPTI, no driver, another profiler subscribed).
roctracer_status_t attach_source(std::uint32_t domain) {
  if (domain == ACTIVITY_DOMAIN_ROCTX) attach_roctx();
  if (const DomainBackend* backend = domain_backend(domain)) {
    if (std::string why; !backend->start(why))
      return fail(ROCTRACER_STATUS_ERROR, "cannot trace {}: {}", domain_name(domain), why);
  }
  return ROCTRACER_STATUS_SUCCESS;
}

roctracer_status_t enable_callbacks_in(std::uint32_t domain, activity_rtapi_callback_t callback,
                                       void* arg) {
  if (auto status = attach_source(domain); status != ROCTRACER_STATUS_SUCCESS) return status;
  const std::uint32_t count = op_count(domain);
  for (std::uint32_t op = 0; op < count; ++op)
    if (is_valid_op(domain, op)) callback_table().enable(domain, op, callback, arg);
  return ROCTRACER_STATUS_SUCCESS;
}

roctracer_status_t disable_callbacks_in(std::uint32_t domain) {
  const std::uint32_t count = op_count(domain);
  for (std::uint32_t op = 0; op < count; ++op) callback_table().disable(domain, op);
  return ROCTRACER_STATUS_SUCCESS;
}

roctracer_status_t enable_domain_activity_in(std::uint32_t domain, roctracer_pool_t* pool) {
  if (auto status = attach_source(domain); status != ROCTRACER_STATUS_SUCCESS) return status;
  return enable_activity(domain, 0, op_count(domain) - 1, pool);
}

}  // namespace

extern "C" {

ROCTRACER_API uint32_t roctracer_version_major(void) { return ROCTRACER_VERSION_MAJOR; }
ROCTRACER_API uint32_t roctracer_version_minor(void) { return ROCTRACER_VERSION_MINOR; }

ROCTRACER_API const char* roctracer_error_string(void) { return last_error_text(); }

ROCTRACER_API const char* roctracer_op_string(uint32_t domain, uint32_t op, uint32_t kind) {
  if (check_domain(domain) != ROCTRACER_STATUS_SUCCESS) return nullptr;
  const char* name = op_name(domain, op, kind);
  if (name == nullptr)
    fail(ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "op {} is not an operation of {}", op,
         domain_name(domain));
  return name;
}

ROCTRACER_API roctracer_status_t roctracer_op_code(uint32_t domain, const char* str, uint32_t* op,
                                                   uint32_t* kind) {
  if (auto status = check_domain(domain); status != ROCTRACER_STATUS_SUCCESS) return status;
  if (str == nullptr || op == nullptr)
    return fail(ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "op name and op output must not be NULL");
  const auto code = op_code(domain, str);
  if (!code)
    return fail(ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "\"{}\" is not an operation of {}", str,
                domain_name(domain));
  *op = code->op;
  if (kind != nullptr) *kind = code->kind;
  return ROCTRACER_STATUS_SUCCESS;
}

ROCTRACER_API roctracer_status_t roctracer_set_properties(roctracer_domain_t domain,
                                                          void* properties) {
  return guarded([&] {
    if (auto status = check_domain(domain); status != ROCTRACER_STATUS_SUCCESS) return status;
    if (domain == ACTIVITY_DOMAIN_EXT_API) {
      if (properties == nullptr)
        return fail(ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT,
                    "EXT_API properties (roctracer_ext_properties_t) must not be NULL");
      set_ext_properties(*static_cast<const roctracer_ext_properties_t*>(properties));
    }
    return ROCTRACER_STATUS_SUCCESS;
  });
}

ROCTRACER_API roctracer_status_t roctracer_enable_op_callback(activity_domain_t domain, uint32_t op,
                                                              activity_rtapi_callback_t callback,
                                                              void* arg) {
  return guarded([&] {
    if (auto status = check_callback_domain(domain); status != ROCTRACER_STATUS_SUCCESS)
      return status;
    if (auto status = check_op(domain, op); status != ROCTRACER_STATUS_SUCCESS) return status;
    if (callback == nullptr)
      return fail(ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "callback must not be NULL");
    if (auto status = attach_source(domain); status != ROCTRACER_STATUS_SUCCESS) return status;
    callback_table().enable(domain, op, callback, arg);
    return ROCTRACER_STATUS_SUCCESS;
  });
}

ROCTRACER_API roctracer_status_t roctracer_enable_domain_callback(
    activity_domain_t domain, activity_rtapi_callback_t callback, void* arg) {
  return guarded([&] {
    if (auto status = check_callback_domain(domain); status != ROCTRACER_STATUS_SUCCESS)
      return status;
    if (callback == nullptr)
      return fail(ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "callback must not be NULL");
    return enable_callbacks_in(domain, callback, arg);
  });
}

ROCTRACER_API roctracer_status_t roctracer_enable_callback(activity_rtapi_callback_t callback,
                                                           void* arg) {
  return guarded([&] {
    if (callback == nullptr)
      return fail(ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "callback must not be NULL");
    for (std::uint32_t domain = 0; domain < ACTIVITY_DOMAIN_NUMBER; ++domain)
      if (is_supported_domain(domain) && has_api_callbacks(domain))
        enable_callbacks_in(domain, callback, arg);
    return ROCTRACER_STATUS_SUCCESS;
  });
}

ROCTRACER_API roctracer_status_t roctracer_disable_op_callback(activity_domain_t domain,
                                                               uint32_t op) {
  return guarded([&] {
    if (auto status = check_callback_domain(domain); status != ROCTRACER_STATUS_SUCCESS)
      return status;
    if (auto status = check_op(domain, op); status != ROCTRACER_STATUS_SUCCESS) return status;
    if (!callback_table().disable(domain, op))
      return fail(ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "no callback was enabled for {} op {}",
                  domain_name(domain), op);
    return ROCTRACER_STATUS_SUCCESS;
  });
}

ROCTRACER_API roctracer_status_t roctracer_disable_domain_callback(activity_domain_t domain) {
  return guarded([&] {
    if (auto status = check_callback_domain(domain); status != ROCTRACER_STATUS_SUCCESS)
      return status;
    return disable_callbacks_in(domain);
  });
}

ROCTRACER_API roctracer_status_t roctracer_disable_callback(void) {
  return guarded([&] {
    for (std::uint32_t domain = 0; domain < ACTIVITY_DOMAIN_NUMBER; ++domain)
      if (is_supported_domain(domain)) disable_callbacks_in(domain);
    return ROCTRACER_STATUS_SUCCESS;
  });
}

ROCTRACER_API roctracer_status_t roctracer_next_record(const activity_record_t* record,
                                                       const activity_record_t** next) {
  if (record == nullptr || next == nullptr)
    return fail(ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "record and next must not be NULL");
  *next = record + 1;
  return ROCTRACER_STATUS_SUCCESS;
}

ROCTRACER_API roctracer_status_t roctracer_open_pool_expl(const roctracer_properties_t* properties,
                                                          roctracer_pool_t** pool) {
  return guarded([&] { return open_pool(properties, pool); });
}

ROCTRACER_API roctracer_status_t roctracer_open_pool(const roctracer_properties_t* properties) {
  return roctracer_open_pool_expl(properties, nullptr);
}

ROCTRACER_API roctracer_status_t roctracer_close_pool_expl(roctracer_pool_t* pool) {
  return guarded([&] { return close_pool(pool); });
}

ROCTRACER_API roctracer_status_t roctracer_close_pool(void) {
  return roctracer_close_pool_expl(nullptr);
}

ROCTRACER_API roctracer_pool_t* roctracer_default_pool_expl(roctracer_pool_t* pool) {
  try {
    return default_pool(pool, true);
  } catch (...) {
    fail(ROCTRACER_STATUS_ERROR, "internal error");
    return nullptr;
  }
}

ROCTRACER_API roctracer_pool_t* roctracer_default_pool(void) {
  return roctracer_default_pool_expl(nullptr);
}

ROCTRACER_API roctracer_status_t roctracer_enable_op_activity_expl(activity_domain_t domain,
                                                                   uint32_t op,
                                                                   roctracer_pool_t* pool) {
  return guarded([&] {
    if (auto status = check_domain(domain); status != ROCTRACER_STATUS_SUCCESS) return status;
    if (auto status = check_op(domain, op); status != ROCTRACER_STATUS_SUCCESS) return status;
    if (auto status = attach_source(domain); status != ROCTRACER_STATUS_SUCCESS) return status;
    return enable_activity(domain, op, op, pool);
  });
}

ROCTRACER_API roctracer_status_t roctracer_enable_op_activity(activity_domain_t domain,
                                                              uint32_t op) {
  return roctracer_enable_op_activity_expl(domain, op, nullptr);
}

ROCTRACER_API roctracer_status_t roctracer_enable_domain_activity_expl(activity_domain_t domain,
                                                                       roctracer_pool_t* pool) {
  return guarded([&] {
    if (auto status = check_domain(domain); status != ROCTRACER_STATUS_SUCCESS) return status;
    return enable_domain_activity_in(domain, pool);
  });
}

ROCTRACER_API roctracer_status_t roctracer_enable_domain_activity(activity_domain_t domain) {
  return roctracer_enable_domain_activity_expl(domain, nullptr);
}

ROCTRACER_API roctracer_status_t roctracer_enable_activity_expl(roctracer_pool_t* pool) {
  return guarded([&] {
    for (std::uint32_t domain = 0; domain < ACTIVITY_DOMAIN_NUMBER; ++domain) {
      if (!is_supported_domain(domain)) continue;
      if (auto status = enable_domain_activity_in(domain, pool); status != ROCTRACER_STATUS_SUCCESS)
        return status;
    }
    return ROCTRACER_STATUS_SUCCESS;
  });
}

ROCTRACER_API roctracer_status_t roctracer_enable_activity(void) {
  return roctracer_enable_activity_expl(nullptr);
}

ROCTRACER_API roctracer_status_t roctracer_disable_op_activity(activity_domain_t domain,
                                                               uint32_t op) {
  return guarded([&] {
    if (auto status = check_domain(domain); status != ROCTRACER_STATUS_SUCCESS) return status;
    if (auto status = check_op(domain, op); status != ROCTRACER_STATUS_SUCCESS) return status;
    return disable_activity(domain, op, op, true);
  });
}

ROCTRACER_API roctracer_status_t roctracer_disable_domain_activity(activity_domain_t domain) {
  return guarded([&] {
    if (auto status = check_domain(domain); status != ROCTRACER_STATUS_SUCCESS) return status;
    return disable_activity(domain, 0, op_count(domain) - 1, false);
  });
}

ROCTRACER_API roctracer_status_t roctracer_disable_activity(void) {
  return guarded([&] {
    for (std::uint32_t domain = 0; domain < ACTIVITY_DOMAIN_NUMBER; ++domain)
      if (is_supported_domain(domain)) disable_activity(domain, 0, op_count(domain) - 1, false);
    return ROCTRACER_STATUS_SUCCESS;
  });
}

ROCTRACER_API roctracer_status_t roctracer_flush_activity_expl(roctracer_pool_t* pool) {
  flush_domain_backends();  // what a backend (CUPTI) still holds first, then the pool's
  return guarded([&] { return flush_pool(pool); });
}

ROCTRACER_API roctracer_status_t roctracer_flush_activity(void) {
  return roctracer_flush_activity_expl(nullptr);
}

ROCTRACER_API roctracer_status_t roctracer_get_timestamp(roctracer_timestamp_t* timestamp) {
  if (timestamp == nullptr)
    return fail(ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "timestamp output must not be NULL");
  *timestamp = now_ns();
  return ROCTRACER_STATUS_SUCCESS;
}

ROCTRACER_API void roctracer_start(void) { set_tracing_running(true); }
ROCTRACER_API void roctracer_stop(void) { set_tracing_running(false); }

ROCTRACER_API roctracer_status_t
roctracer_activity_push_external_correlation_id(activity_correlation_id_t id) {
  if (rocprof_mpi_external_id_push(&this_thread_state().external, id) == 0)
    return fail(ROCTRACER_STATUS_ERROR, "external correlation id stack is full ({} entries)",
                ROCPROF_MPI_EXTERNAL_ID_DEPTH);
  return ROCTRACER_STATUS_SUCCESS;
}

ROCTRACER_API roctracer_status_t
roctracer_activity_pop_external_correlation_id(activity_correlation_id_t* last_id) {
  if (rocprof_mpi_external_id_pop(&this_thread_state().external, last_id) == 0)
    return fail(ROCTRACER_STATUS_ERROR_MISMATCHED_EXTERNAL_CORRELATION_ID,
                "pop without a matching push: the external correlation id stack is empty");
  return ROCTRACER_STATUS_SUCCESS;
}

ROCTRACER_API uint64_t rocprof_mpi_current_external_id(void) {
  return innermost_external_id(this_thread_state());
}

ROCTRACER_API rocprof_mpi_external_id_stack_t* rocprof_mpi_thread_external_ids(void) {
  return &this_thread_state().external;
}

ROCTRACER_API roctracer_status_t rocprof_mpi_pool_stats(roctracer_pool_t* pool,
                                                        rocprof_mpi_pool_stats_t* stats) {
  return guarded([&] {
    if (stats == nullptr)
      return fail(ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "stats output must not be NULL");
    PoolCounters counters{};
    if (auto status = pool_counters(pool, &counters); status != ROCTRACER_STATUS_SUCCESS)
      return status;
    stats->delivered_records = counters.delivered;
    stats->dropped_records = counters.dropped;
    return ROCTRACER_STATUS_SUCCESS;
  });
}

}  // extern "C"
