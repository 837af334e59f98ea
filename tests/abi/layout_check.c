/* Compiled as C11 (and again as C++): every public header is usable from C, and the record,
 * property and callback-data layouts and enum values match the roctracer 4.1 ABI. */
#include <stddef.h>

#include <rocprof-mpi/pool_stats.h>
#include <roctracer/roctracer.h>
#include <roctracer/roctracer_ext.h>
#include <roctracer/roctracer_hip.h>
#include <roctracer/roctracer_hsa.h>
#include <roctracer/roctracer_roctx.h>
#include <roctracer/roctx.h>

#ifdef __cplusplus
#define ROCPROF_STATIC_ASSERT static_assert
#else
#define ROCPROF_STATIC_ASSERT _Static_assert
#endif

ROCPROF_STATIC_ASSERT(sizeof(activity_record_t) == 64, "record stride");
ROCPROF_STATIC_ASSERT(offsetof(activity_record_t, domain) == 0, "domain");
ROCPROF_STATIC_ASSERT(offsetof(activity_record_t, kind) == 4, "kind");
ROCPROF_STATIC_ASSERT(offsetof(activity_record_t, op) == 8, "op");
ROCPROF_STATIC_ASSERT(offsetof(activity_record_t, correlation_id) == 16, "correlation_id");
ROCPROF_STATIC_ASSERT(offsetof(activity_record_t, begin_ns) == 24, "begin_ns");
ROCPROF_STATIC_ASSERT(offsetof(activity_record_t, end_ns) == 32, "end_ns");
ROCPROF_STATIC_ASSERT(offsetof(activity_record_t, pc_sample) == 16, "pc_sample");
ROCPROF_STATIC_ASSERT(offsetof(activity_record_t, device_id) == 40, "device_id");
ROCPROF_STATIC_ASSERT(offsetof(activity_record_t, queue_id) == 48, "queue_id");
ROCPROF_STATIC_ASSERT(offsetof(activity_record_t, process_id) == 40, "process_id");
ROCPROF_STATIC_ASSERT(offsetof(activity_record_t, thread_id) == 44, "thread_id");
ROCPROF_STATIC_ASSERT(offsetof(activity_record_t, external_id) == 40, "external_id");
ROCPROF_STATIC_ASSERT(offsetof(activity_record_t, bytes) == 56, "bytes");
ROCPROF_STATIC_ASSERT(offsetof(activity_record_t, kernel_name) == 56, "kernel_name");
ROCPROF_STATIC_ASSERT(offsetof(activity_record_t, mark_message) == 56, "mark_message");

ROCPROF_STATIC_ASSERT(sizeof(roctracer_properties_t) == 48, "properties size");
ROCPROF_STATIC_ASSERT(offsetof(roctracer_properties_t, buffer_size) == 8, "buffer_size");
ROCPROF_STATIC_ASSERT(offsetof(roctracer_properties_t, alloc_fun) == 16, "alloc_fun");
ROCPROF_STATIC_ASSERT(offsetof(roctracer_properties_t, alloc_arg) == 24, "alloc_arg");
ROCPROF_STATIC_ASSERT(offsetof(roctracer_properties_t, buffer_callback_fun) == 32, "cb");
ROCPROF_STATIC_ASSERT(offsetof(roctracer_properties_t, buffer_callback_arg) == 40, "cb arg");
ROCPROF_STATIC_ASSERT(sizeof(roctracer_ext_properties_t) == 16, "ext properties");

ROCPROF_STATIC_ASSERT(sizeof(roctx_api_data_t) == 16, "roctx data");
ROCPROF_STATIC_ASSERT(offsetof(roctx_api_data_t, args.message) == 0, "roctx message");
ROCPROF_STATIC_ASSERT(offsetof(roctx_api_data_t, args.id) == 8, "roctx id");
ROCPROF_STATIC_ASSERT(offsetof(roctx_api_data_t, args.roctxRangeStop.id) == 8, "stop id");

ROCPROF_STATIC_ASSERT(ACTIVITY_DOMAIN_HSA_API == 0 && ACTIVITY_DOMAIN_HSA_OPS == 1 &&
                          ACTIVITY_DOMAIN_HIP_OPS == 2 && ACTIVITY_DOMAIN_HCC_OPS == 2 &&
                          ACTIVITY_DOMAIN_HIP_VDI == 2 && ACTIVITY_DOMAIN_HIP_API == 3 &&
                          ACTIVITY_DOMAIN_KFD_API == 4 && ACTIVITY_DOMAIN_EXT_API == 5 &&
                          ACTIVITY_DOMAIN_ROCTX == 6 && ACTIVITY_DOMAIN_HSA_EVT == 7 &&
                          ACTIVITY_DOMAIN_NUMBER == 8,
                      "domains");
ROCPROF_STATIC_ASSERT(ACTIVITY_API_PHASE_ENTER == 0 && ACTIVITY_API_PHASE_EXIT == 1, "phases");
ROCPROF_STATIC_ASSERT(ROCTRACER_STATUS_SUCCESS == 0 && ROCTRACER_STATUS_ERROR == -1 &&
                          ROCTRACER_STATUS_ERROR_INVALID_DOMAIN_ID == -2 &&
                          ROCTRACER_STATUS_ERROR_INVALID_ARGUMENT == -3 &&
                          ROCTRACER_STATUS_ERROR_DEFAULT_POOL_UNDEFINED == -4 &&
                          ROCTRACER_STATUS_ERROR_DEFAULT_POOL_ALREADY_DEFINED == -5 &&
                          ROCTRACER_STATUS_ERROR_MEMORY_ALLOCATION == -6 &&
                          ROCTRACER_STATUS_ERROR_MISMATCHED_EXTERNAL_CORRELATION_ID == -7 &&
                          ROCTRACER_STATUS_UNINIT == 2 && ROCTRACER_STATUS_BREAK == 3 &&
                          ROCTRACER_STATUS_BAD_DOMAIN == -2 &&
                          ROCTRACER_STATUS_BAD_PARAMETER == -3 &&
                          ROCTRACER_STATUS_HIP_API_ERR == 6 && ROCTRACER_STATUS_HIP_OPS_ERR == 7 &&
                          ROCTRACER_STATUS_HCC_OPS_ERR == 7 && ROCTRACER_STATUS_HSA_ERR == 7 &&
                          ROCTRACER_STATUS_ROCTX_ERR == 8,
                      "status codes");
ROCPROF_STATIC_ASSERT(ACTIVITY_EXT_OP_MARK == 0 && ACTIVITY_EXT_OP_EXTERN_ID == 1, "ext ops");
ROCPROF_STATIC_ASSERT(ROCTX_API_ID_roctxMarkA == 0 && ROCTX_API_ID_roctxRangePushA == 1 &&
                          ROCTX_API_ID_roctxRangePop == 2 && ROCTX_API_ID_roctxRangeStartA == 3 &&
                          ROCTX_API_ID_roctxRangeStop == 4 && ROCTX_API_ID_NUMBER == 5,
                      "roctx ops");
ROCPROF_STATIC_ASSERT(HIP_OP_ID_DISPATCH == 0 && HIP_OP_ID_COPY == 1 && HIP_OP_ID_BARRIER == 2 &&
                          HIP_OP_ID_NUMBER == 3,
                      "hip ops");
ROCPROF_STATIC_ASSERT(HSA_OP_ID_DISPATCH == 0 && HSA_OP_ID_COPY == 1 && HSA_OP_ID_BARRIER == 2 &&
                          HSA_OP_ID_RESERVED1 == 3 && HSA_OP_ID_NUMBER == 4,
                      "hsa ops");
ROCPROF_STATIC_ASSERT(HSA_EVT_ID_ALLOCATE == 0 && HSA_EVT_ID_CODEOBJ == 5 && HSA_EVT_ID_NUMBER == 6,
                      "hsa events");
ROCPROF_STATIC_ASSERT(HSA_API_ID_hsa_init == 0 && HSA_API_ID_hsa_shut_down == 1, "hsa api ids");
ROCPROF_STATIC_ASSERT(offsetof(hsa_api_data_t, phase) == 8, "hsa phase");
ROCPROF_STATIC_ASSERT(offsetof(hsa_api_data_t, args) == 24, "hsa args");
/* roctracer's layout for the HSA 1.x tables of ROCm 5.2 (core, AMD, image): 88-byte args. */
ROCPROF_STATIC_ASSERT(sizeof(((hsa_api_data_t*)0)->args) == 88, "hsa args size");
ROCPROF_STATIC_ASSERT(offsetof(hsa_api_data_t, phase_data) == 112, "hsa phase_data");
ROCPROF_STATIC_ASSERT(offsetof(hip_api_data_t, phase) == 8, "hip phase");

/* Every prototype is reachable from C with its declared signature. */
typedef roctracer_status_t (*open_pool_expl_t)(const roctracer_properties_t*, roctracer_pool_t**);
typedef roctracer_status_t (*push_t)(activity_correlation_id_t);
typedef int (*push_range_t)(const char*);

int main(void) {
  open_pool_expl_t open_pool_expl = roctracer_open_pool_expl;
  push_t push = roctracer_activity_push_external_correlation_id;
  push_range_t push_range = roctxRangePushA;
  roctracer_timestamp_t now = 0;
  if (roctracer_get_timestamp(&now) != ROCTRACER_STATUS_SUCCESS || now == 0) return 1;
  if (roctracer_version_major() != ROCTRACER_VERSION_MAJOR) return 2;
  if (push_range("from C") != 0 || roctxRangePop() != 0) return 3;
  return open_pool_expl != NULL && push != NULL ? 0 : 4;
}
