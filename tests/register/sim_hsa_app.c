/* A program of the simulated HSA runtime: prints what the runtime answered (which must not
 * change under a tool) and how many of the runtime's table entries a tool wrapped. */
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <hsa/hsa_ext_image.h>
#include <stdio.h>

#include "tests/register/sim_hsa_runtime.h"

static hsa_status_t print_agent(hsa_agent_t agent, void* data) {
  char name[64] = {0};
  hsa_status_t status = hsa_agent_get_info(agent, HSA_AGENT_INFO_NAME, name);
  printf("app: agent %s status %d\n", name, (int)status);
  ++*(int*)data;
  return status;
}

int main(void) {
  printf("app: init %d\n", (int)hsa_init());
  printf("app: wrapped %d\n", sim_hsa_wrapped_entries());
  uint64_t frequency = 0;
  const hsa_status_t info = hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &frequency);
  printf("app: frequency %llu status %d\n", (unsigned long long)frequency, (int)info);
  int agents = 0;
  const hsa_status_t iterated = hsa_iterate_agents(&print_agent, &agents);
  printf("app: iterate %d agents %d\n", (int)iterated, agents);
  hsa_signal_t signal = {3};
  hsa_signal_store_relaxed(signal, 7);
  printf("app: signal %ld\n", (long)hsa_signal_load_relaxed(signal));
  hsa_dim3_t range = {4, 5, 6};
  hsa_pitched_ptr_t dst = {0}, src = {0};
  hsa_dim3_t origin = {0, 0, 0};
  hsa_agent_t agent = {1};
  printf("app: copy %d\n",
         (int)hsa_amd_memory_async_copy_rect(&dst, &origin, &src, &origin, &range, agent,
                                             hsaHostToDevice, 0, NULL, signal));
  uint32_t mask = 99;
  const hsa_status_t image =
      hsa_ext_image_get_capability(agent, HSA_EXT_IMAGE_GEOMETRY_2D, NULL, &mask);
  printf("app: image %d mask %u\n", (int)image, mask);
  printf("app: shut down %d\n", (int)hsa_shut_down());
  return 0;
}
