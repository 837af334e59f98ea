/* A tool written against the roctracer C API: defines rocprofiler_configure (so that
 * rocprofiler-register finds it) and there subscribes to ACTIVITY_DOMAIN_HSA_API, printing
 * every enter and exit with its correlation id and a few arguments. With
 * HSA_TRACE_TOOL_AT_LOAD=1 it subscribes when it is loaded instead (for HSA_TOOLS_LIB runs,
 * where nothing calls rocprofiler_configure). */
#include <roctracer/roctracer.h>
#include <roctracer/roctracer_hsa.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void on_hsa_api(uint32_t domain, uint32_t op, const void* callback_data, void* arg) {
  (void)arg;
  const hsa_api_data_t* data = (const hsa_api_data_t*)callback_data;
  const int enter = data->phase == ACTIVITY_API_PHASE_ENTER;
  printf("tool: %s %s corr %llu", enter ? "enter" : "exit", roctracer_op_string(domain, op, 0),
         (unsigned long long)data->correlation_id);
  switch (op) {
    case HSA_API_ID_hsa_system_get_info:
      printf(" attribute %d", (int)data->args.hsa_system_get_info.attribute);
      break;
    case HSA_API_ID_hsa_agent_get_info:
      printf(" agent %llu", (unsigned long long)data->args.hsa_agent_get_info.agent.handle);
      break;
    case HSA_API_ID_hsa_signal_store_relaxed:
      printf(" value %ld", (long)data->args.hsa_signal_store_relaxed.value);
      break;
    case HSA_API_ID_hsa_signal_load_relaxed:
      if (!enter) printf(" result %ld", (long)data->hsa_signal_value_t_retval);
      break;
    case HSA_API_ID_hsa_amd_memory_async_copy_rect: {
      const hsa_dim3_t* range = &data->args.hsa_amd_memory_async_copy_rect.range__val;
      printf(" range %ux%ux%u", range->x, range->y, range->z);
      break;
    }
    default:
      break;
  }
  if (!enter && op != HSA_API_ID_hsa_signal_store_relaxed &&
      op != HSA_API_ID_hsa_signal_load_relaxed)
    printf(" status %d", (int)data->hsa_status_t_retval);
  printf("\n");
}

static void subscribe(void) {
  if (roctracer_enable_domain_callback(ACTIVITY_DOMAIN_HSA_API, on_hsa_api, NULL) !=
      ROCTRACER_STATUS_SUCCESS)
    printf("tool: subscribe failed: %s\n", roctracer_error_string());
}

__attribute__((visibility("default"))) void* rocprofiler_configure(uint32_t version,
                                                                   const char* runtime_version,
                                                                   uint32_t priority,
                                                                   void* client_id) {
  (void)version, (void)runtime_version, (void)priority, (void)client_id;
  printf("tool: configure\n");
  subscribe();
  return NULL;
}

__attribute__((constructor)) static void at_load(void) {
  const char* at_load = getenv("HSA_TRACE_TOOL_AT_LOAD");
  if (at_load != NULL && strcmp(at_load, "1") == 0) subscribe();
}
