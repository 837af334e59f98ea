// What the HSA tests do as an application would: find the agents, look a kernel up in a frozen
// executable, and dispatch it through an AQL queue (as a HIP runtime does).
#pragma once

#include <hsa/hsa.h>

#include <cstdint>
#include <cstring>
#include <string>

namespace sim_hsa_work {

inline hsa_status_t find_agents(hsa_agent_t agent, void* data) {
  auto* agents = static_cast<hsa_agent_t*>(data);  // [cpu, gpu]
  hsa_device_type_t type{};
  hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type);
  agents[type == HSA_DEVICE_TYPE_GPU ? 1 : 0] = agent;
  return HSA_STATUS_SUCCESS;
}

// The kernel object of the function symbol `name` in `executable`.
struct Wanted {
  const char* name;
  std::uint64_t object;
};
inline hsa_status_t find_kernel(hsa_executable_t /*executable*/, hsa_executable_symbol_t symbol,
                                void* data) {
  auto& wanted = *static_cast<Wanted*>(data);
  std::uint32_t length = 0;
  hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH, &length);
  std::string name(length, '\0');
  hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_NAME, name.data());
  if (name == wanted.name)
    hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT,
                                   &wanted.object);
  return HSA_STATUS_SUCCESS;
}

// Submits one kernel dispatch of `kernel_object` on `queue` that completes `done`, as a HIP
// runtime does.
inline void dispatch(hsa_queue_t* queue, hsa_signal_t done, std::uint64_t kernel_object) {
  const std::uint64_t index = hsa_queue_add_write_index_relaxed(queue, 1);
  auto* packet =
      static_cast<hsa_kernel_dispatch_packet_t*>(queue->base_address) + index % queue->size;
  std::memset(reinterpret_cast<char*>(packet) + 4, 0, sizeof *packet - 4);
  packet->setup = 1;
  packet->workgroup_size_x = 64;
  packet->workgroup_size_y = packet->workgroup_size_z = 1;
  packet->grid_size_x = 4096;
  packet->grid_size_y = packet->grid_size_z = 1;
  packet->kernel_object = kernel_object;
  packet->completion_signal = done;
  const auto header =
      static_cast<std::uint16_t>(HSA_PACKET_TYPE_KERNEL_DISPATCH |
                                 (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_ACQUIRE_FENCE_SCOPE) |
                                 (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_RELEASE_FENCE_SCOPE));
  __atomic_store_n(&packet->header, header, __ATOMIC_RELEASE);
  hsa_signal_store_screlease(queue->doorbell_signal, static_cast<hsa_signal_value_t>(index));
}

}  // namespace sim_hsa_work
