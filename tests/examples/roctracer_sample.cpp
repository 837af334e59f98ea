// A roctracer client written the way the roctracer documentation's sample is: a default
// pool with a buffer callback, callbacks on a domain, activity enabled, records walked with
// roctracer_next_record. It traces ROC-TX (no GPU needed) and prints what it saw.
// Built against our headers with `-I<prefix>/include/roctracer`, exactly as against ROCm's.
#include <roctracer.h>
#include <roctracer_ext.h>
#include <roctracer_roctx.h>
#include <roctx.h>

#include <cstdio>
#include <cstdlib>
#include <thread>

#define ROCTRACER_CALL(call)                                                    \
  do {                                                                          \
    int err = call;                                                             \
    if (err != 0) {                                                             \
      std::fprintf(stderr, "%s failed: %s\n", #call, roctracer_error_string()); \
      std::abort();                                                             \
    }                                                                           \
  } while (0)

static unsigned long g_callbacks = 0;
static unsigned long g_records = 0;

// ROC-TX API callback: runs in the annotated thread.
void roctx_api_callback(uint32_t domain, uint32_t cid, const void* callback_data, void* arg) {
  (void)arg;
  const auto* data = reinterpret_cast<const roctx_api_data_t*>(callback_data);
  std::fprintf(stdout, "<%s id(%u) message(%s)>\n", roctracer_op_string(domain, cid, 0), cid,
               data->args.message ? data->args.message : "");
  ++g_callbacks;
}

// Activity buffer callback: runs on the pool thread.
void activity_callback(const char* begin, const char* end, void* arg) {
  (void)arg;
  const auto* record = reinterpret_cast<const roctracer_record_t*>(begin);
  const auto* end_record = reinterpret_cast<const roctracer_record_t*>(end);
  std::fprintf(stdout, "\tActivity records:\n");
  while (record < end_record) {
    const char* name = roctracer_op_string(record->domain, record->op, 0);
    if (record->domain == ACTIVITY_DOMAIN_EXT_API) {
      std::fprintf(stdout, "\t%s\tcorrelation_id(%lu) external_id(%lu)\n", name,
                   record->correlation_id, record->external_id);
    } else {
      std::fprintf(stdout, "\t%s\tcorrelation_id(%lu) time_ns(%lu:%lu) tid(%u) message(%s)\n", name,
                   record->correlation_id, record->begin_ns, record->end_ns, record->thread_id,
                   record->mark_message ? record->mark_message : "");
    }
    ++g_records;
    ROCTRACER_CALL(roctracer_next_record(record, &record));
  }
}

static void solve_step(int step) {
  roctxRangePushA("solve");
  double x = step;
  for (int i = 0; i < 1000; ++i) x = x * 0.5 + 1.0;
  roctxMarkA(x > 0 ? "converged" : "diverged");
  roctxRangePop();
}

int main() {
  roctracer_properties_t properties{};
  properties.buffer_size = 12;  // tiny on purpose: the library rounds it up
  properties.buffer_callback_fun = activity_callback;
  ROCTRACER_CALL(roctracer_open_pool(&properties));

  ROCTRACER_CALL(roctracer_enable_op_callback(ACTIVITY_DOMAIN_ROCTX, ROCTX_API_ID_roctxMarkA,
                                              roctx_api_callback, nullptr));
  ROCTRACER_CALL(roctracer_enable_domain_activity(ACTIVITY_DOMAIN_ROCTX));

  ROCTRACER_CALL(roctracer_activity_push_external_correlation_id(42));
  roctx_range_id_t run = roctxRangeStartA("run");
  for (int step = 0; step < 3; ++step) solve_step(step);
  std::thread helper([] { solve_step(99); });
  helper.join();
  roctxRangeStop(run);
  ROCTRACER_CALL(roctracer_activity_pop_external_correlation_id(nullptr));

  ROCTRACER_CALL(roctracer_disable_callback());
  ROCTRACER_CALL(roctracer_disable_activity());
  ROCTRACER_CALL(roctracer_flush_activity());
  ROCTRACER_CALL(roctracer_close_pool());
  std::fprintf(stdout, "callbacks: %lu, activity records: %lu\n", g_callbacks, g_records);
  return 0;
}
