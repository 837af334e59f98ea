// Every API function fed bad arguments: the documented status, a message for
// roctracer_error_string, and no crash. One row per case.
#include <climits>
#include <functional>

#include <roctracer/roctracer_hip.h>

#include "tests/unit/tracer_fixture.hpp"

namespace {

using rocprof::test::TracerTest;

void noop_callback(uint32_t /*domain*/, uint32_t /*op*/, const void* /*data*/, void* /*arg*/) {}
void noop_buffer(const char* /*begin*/, const char* /*end*/, void* /*arg*/) {}

roctracer_properties_t valid_properties(size_t size = 4096) {
  roctracer_properties_t properties{};
  properties.buffer_size = size;
  properties.buffer_callback_fun = noop_buffer;
  return properties;
}

const auto kBadDomain = static_cast<activity_domain_t>(99);

struct BadInputCase {
  const char* name;
  std::function<roctracer_status_t()> call;
  roctracer_status_t expected;
  const char* message_part;  // must appear in roctracer_error_string()
};

void PrintTo(const BadInputCase& c, std::ostream* os) { *os << c.name; }

class BadInput : public TracerTest, public ::testing::WithParamInterface<BadInputCase> {};

roctracer_pool_t* closed_pool() {
  roctracer_properties_t properties = valid_properties();
  roctracer_pool_t* pool = nullptr;
  roctracer_open_pool_expl(&properties, &pool);
  roctracer_close_pool_expl(pool);
  return pool;
}

roctracer_status_t push_past_capacity() {
  roctracer_status_t status = ROCTRACER_STATUS_SUCCESS;
  for (int i = 0; i < 300 && status == ROCTRACER_STATUS_SUCCESS; ++i)
    status = roctracer_activity_push_external_correlation_id(i);
  return status;
}

roctracer_status_t status_of_string(const char* result) {
  return result == nullptr ? ROCTRACER_STATUS_ERROR : ROCTRACER_STATUS_SUCCESS;
}

// A pool whose buffer callback tries to close the pool it belongs to.
roctracer_status_t close_from_own_callback() {
  static roctracer_pool_t* self = nullptr;
  static roctracer_status_t seen = ROCTRACER_STATUS_SUCCESS;
  static std::string message;
  roctracer_properties_t properties = valid_properties();
  properties.buffer_callback_fun = [](const char*, const char*, void*) {
    seen = roctracer_close_pool_expl(self);
    message = roctracer_error_string();  // the error belongs to the pool thread
  };
  roctracer_open_pool_expl(&properties, &self);
  roctracer_enable_op_activity_expl(ACTIVITY_DOMAIN_ROCTX, ROCTX_API_ID_roctxMarkA, self);
  roctxMarkA("x");
  roctracer_flush_activity_expl(self);
  const roctracer_status_t result = seen;
  roctracer_close_pool_expl(self);
  // Re-raise the pool thread's message here so the table checks its text.
  roctracer_properties_t bad{};
  roctracer_open_pool(&bad);
  return message.find("own buffer callback") != std::string::npos ? result
                                                                  : ROCTRACER_STATUS_SUCCESS;
}

const BadInputCase kCases[] = {
    // Callbacks.
    {"enable_op_callback_unknown_domain",
     [] { return roctracer_enable_op_callback(kBadDomain, 0, noop_callback, nullptr); },
     ROCTRACER_STATUS_ERROR_INVALID_DOMAIN_ID, "unknown domain"},
    {"enable_op_callback_kfd_domain",
     [] {
       return roctracer_enable_op_callback(ACTIVITY_DOMAIN_KFD_API, 0, noop_callback, nullptr);
     },
     ROCTRACER_STATUS_ERROR_INVALID_DOMAIN_ID, "not supported"},
    {"enable_op_callback_async_domain",
     [] {
       return roctracer_enable_op_callback(ACTIVITY_DOMAIN_HIP_OPS, 0, noop_callback, nullptr);
     },
     ROCTRACER_STATUS_ERROR_INVALID_DOMAIN_ID, "no API callbacks"},
    {"enable_op_callback_op_out_of_range",
     [] {
       return roctracer_enable_op_callback(ACTIVITY_DOMAIN_ROCTX, ROCTX_API_ID_NUMBER,
                                           noop_callback, nullptr);
     },
     ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "not an operation"},
    {"enable_op_callback_hip_id_none",
     [] {
       return roctracer_enable_op_callback(ACTIVITY_DOMAIN_HIP_API, HIP_API_ID_NONE, noop_callback,
                                           nullptr);
     },
     ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "not an operation"},
    {"enable_op_callback_null_callback",
     [] { return roctracer_enable_op_callback(ACTIVITY_DOMAIN_ROCTX, 0, nullptr, nullptr); },
     ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "callback"},
    {"enable_domain_callback_unknown_domain",
     [] { return roctracer_enable_domain_callback(kBadDomain, noop_callback, nullptr); },
     ROCTRACER_STATUS_ERROR_INVALID_DOMAIN_ID, "unknown domain"},
    {"enable_domain_callback_null_callback",
     [] { return roctracer_enable_domain_callback(ACTIVITY_DOMAIN_ROCTX, nullptr, nullptr); },
     ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "callback"},
    {"enable_callback_null_callback", [] { return roctracer_enable_callback(nullptr, nullptr); },
     ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "callback"},
    {"disable_op_callback_never_enabled",
     [] { return roctracer_disable_op_callback(ACTIVITY_DOMAIN_ROCTX, ROCTX_API_ID_roctxMarkA); },
     ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "no callback was enabled"},
    {"disable_op_callback_op_out_of_range",
     [] { return roctracer_disable_op_callback(ACTIVITY_DOMAIN_ROCTX, 1000); },
     ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "not an operation"},
    {"disable_op_callback_unknown_domain",
     [] { return roctracer_disable_op_callback(kBadDomain, 0); },
     ROCTRACER_STATUS_ERROR_INVALID_DOMAIN_ID, "unknown domain"},
    {"disable_domain_callback_unknown_domain",
     [] { return roctracer_disable_domain_callback(kBadDomain); },
     ROCTRACER_STATUS_ERROR_INVALID_DOMAIN_ID, "unknown domain"},
    // Pools.
    {"open_pool_null_properties", [] { return roctracer_open_pool(nullptr); },
     ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "NULL"},
    {"open_pool_without_buffer_callback",
     [] {
       roctracer_properties_t properties = valid_properties();
       properties.buffer_callback_fun = nullptr;
       return roctracer_open_pool(&properties);
     },
     ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "buffer_callback_fun"},
    {"open_pool_zero_buffer_size",
     [] {
       roctracer_properties_t properties = valid_properties(0);
       return roctracer_open_pool(&properties);
     },
     ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "buffer_size"},
    {"open_pool_absurd_buffer_size",
     [] {
       roctracer_properties_t properties = valid_properties(size_t{2} << 30);
       return roctracer_open_pool(&properties);
     },
     ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "buffer_size"},
    {"open_pool_expl_size_max",
     [] {
       roctracer_properties_t properties = valid_properties(SIZE_MAX);
       roctracer_pool_t* pool = nullptr;
       return roctracer_open_pool_expl(&properties, &pool);
     },
     ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "buffer_size"},
    {"open_default_pool_twice",
     [] {
       roctracer_properties_t properties = valid_properties();
       roctracer_open_pool(&properties);
       return roctracer_open_pool(&properties);
     },
     ROCTRACER_STATUS_ERROR_DEFAULT_POOL_ALREADY_DEFINED, "default pool"},
    {"close_pool_twice", [] { return roctracer_close_pool_expl(closed_pool()); },
     ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "not open"},
    {"close_pool_garbage_pointer",
     [] {
       static int not_a_pool;
       return roctracer_close_pool_expl(&not_a_pool);
     },
     ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "not open"},
    {"close_pool_from_its_own_callback", close_from_own_callback, ROCTRACER_STATUS_ERROR,
     "no buffer_callback_fun"},
    {"flush_closed_pool", [] { return roctracer_flush_activity_expl(closed_pool()); },
     ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "not open"},
    {"default_pool_expl_garbage_pointer",
     [] {
       static int not_a_pool;
       roctracer_pool_t* previous = roctracer_default_pool_expl(&not_a_pool);
       // The default stays what it was (none).
       return previous == nullptr && roctracer_default_pool() == nullptr
                  ? ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT
                  : ROCTRACER_STATUS_SUCCESS;
     },
     ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "not open"},
    // Activity.
    {"enable_op_activity_without_default_pool",
     [] { return roctracer_enable_op_activity(ACTIVITY_DOMAIN_ROCTX, ROCTX_API_ID_roctxMarkA); },
     ROCTRACER_STATUS_ERROR_DEFAULT_POOL_UNDEFINED, "no default pool"},
    {"enable_activity_without_default_pool", [] { return roctracer_enable_activity(); },
     ROCTRACER_STATUS_ERROR_DEFAULT_POOL_UNDEFINED, "no default pool"},
    {"enable_op_activity_closed_pool",
     [] {
       return roctracer_enable_op_activity_expl(ACTIVITY_DOMAIN_ROCTX, ROCTX_API_ID_roctxMarkA,
                                                closed_pool());
     },
     ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "not open"},
    {"enable_op_activity_unknown_domain",
     [] { return roctracer_enable_op_activity(kBadDomain, 0); },
     ROCTRACER_STATUS_ERROR_INVALID_DOMAIN_ID, "unknown domain"},
    {"enable_op_activity_op_out_of_range",
     [] { return roctracer_enable_op_activity(ACTIVITY_DOMAIN_HSA_OPS, 77); },
     ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "not an operation"},
    {"enable_domain_activity_kfd",
     [] { return roctracer_enable_domain_activity(ACTIVITY_DOMAIN_KFD_API); },
     ROCTRACER_STATUS_ERROR_INVALID_DOMAIN_ID, "not supported"},
    {"disable_op_activity_never_enabled",
     [] { return roctracer_disable_op_activity(ACTIVITY_DOMAIN_ROCTX, ROCTX_API_ID_roctxMarkA); },
     ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "was not enabled"},
    {"disable_op_activity_op_out_of_range",
     [] { return roctracer_disable_op_activity(ACTIVITY_DOMAIN_ROCTX, 99); },
     ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "not an operation"},
    {"disable_domain_activity_unknown_domain",
     [] { return roctracer_disable_domain_activity(kBadDomain); },
     ROCTRACER_STATUS_ERROR_INVALID_DOMAIN_ID, "unknown domain"},
    // External correlation ids.
    {"pop_external_id_without_push",
     [] { return roctracer_activity_pop_external_correlation_id(nullptr); },
     ROCTRACER_STATUS_ERROR_MISMATCHED_EXTERNAL_CORRELATION_ID, "empty"},
    {"push_external_id_past_capacity", push_past_capacity, ROCTRACER_STATUS_ERROR, "full"},
    // Names and codes.
    {"op_string_unknown_domain", [] { return status_of_string(roctracer_op_string(99, 0, 0)); },
     ROCTRACER_STATUS_ERROR, "unknown domain"},
    {"op_string_op_out_of_range",
     [] { return status_of_string(roctracer_op_string(ACTIVITY_DOMAIN_ROCTX, 5, 0)); },
     ROCTRACER_STATUS_ERROR, "not an operation"},
    {"op_code_unknown_domain",
     [] {
       uint32_t op = 0;
       return roctracer_op_code(99, "hipMalloc", &op, nullptr);
     },
     ROCTRACER_STATUS_ERROR_INVALID_DOMAIN_ID, "unknown domain"},
    {"op_code_null_name",
     [] {
       uint32_t op = 0;
       return roctracer_op_code(ACTIVITY_DOMAIN_HIP_API, nullptr, &op, nullptr);
     },
     ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "NULL"},
    {"op_code_null_output",
     [] { return roctracer_op_code(ACTIVITY_DOMAIN_HIP_API, "hipMalloc", nullptr, nullptr); },
     ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "NULL"},
    {"op_code_unknown_name",
     [] {
       uint32_t op = 0;
       return roctracer_op_code(ACTIVITY_DOMAIN_HIP_API, "hipNoSuchCall", &op, nullptr);
     },
     ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "hipNoSuchCall"},
    // Everything else.
    {"set_properties_unknown_domain", [] { return roctracer_set_properties(kBadDomain, nullptr); },
     ROCTRACER_STATUS_ERROR_INVALID_DOMAIN_ID, "unknown domain"},
    {"set_properties_ext_null",
     [] { return roctracer_set_properties(ACTIVITY_DOMAIN_EXT_API, nullptr); },
     ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "EXT_API"},
    {"next_record_null", [] { return roctracer_next_record(nullptr, nullptr); },
     ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "NULL"},
    {"get_timestamp_null", [] { return roctracer_get_timestamp(nullptr); },
     ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "NULL"},
    {"pool_stats_null_output", [] { return rocprof_mpi_pool_stats(nullptr, nullptr); },
     ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "NULL"},
    {"pool_stats_closed_pool",
     [] {
       rocprof_mpi_pool_stats_t stats{};
       return rocprof_mpi_pool_stats(closed_pool(), &stats);
     },
     ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT, "not open"},
};

TEST_P(BadInput, ReturnsDocumentedStatusAndExplains) {
  const BadInputCase& c = GetParam();
  EXPECT_EQ(c.call(), c.expected);
  EXPECT_NE(std::string(roctracer_error_string()).find(c.message_part), std::string::npos)
      << "error string: " << roctracer_error_string();
}

INSTANTIATE_TEST_SUITE_P(Table, BadInput, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(BadInputSanity, SuccessDoesNotNeedAnErrorAndTheStringIsNeverNull) {
  EXPECT_NE(roctracer_error_string(), nullptr);
  roctracer_timestamp_t t = 0;
  EXPECT_EQ(roctracer_get_timestamp(&t), ROCTRACER_STATUS_SUCCESS);
}

}  // namespace
