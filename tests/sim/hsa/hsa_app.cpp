// An HSA application for the recorder test: loads a code object, dispatches its "stencil"
// kernel ITERATIONS times through an AQL queue, and copies a buffer with
// hsa_amd_memory_async_copy, waiting for each on its completion signal.
//
// It keeps the code object loaded for HOLD_MS (default 0) before unloading it.
//
// usage: hsa_app CODE_OBJECT [ITERATIONS [HOLD_MS]]
#include <fcntl.h>
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "tests/sim/hsa/hsa_work.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: hsa_app CODE_OBJECT [ITERATIONS]\n");
    return 2;
  }
  const int iterations = argc > 2 ? std::atoi(argv[2]) : 10;
  const int hold_ms = argc > 3 ? std::atoi(argv[3]) : 0;
  if (hsa_init() != HSA_STATUS_SUCCESS) return 1;
  hsa_agent_t agents[2] = {};
  hsa_iterate_agents(sim_hsa_work::find_agents, agents);
  const int file = open(argv[1], O_RDONLY);
  hsa_code_object_reader_t reader{};
  hsa_executable_t executable{};
  if (file < 0 || hsa_code_object_reader_create_from_file(file, &reader) != HSA_STATUS_SUCCESS ||
      hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr,
                                &executable) != HSA_STATUS_SUCCESS ||
      hsa_executable_load_agent_code_object(executable, agents[1], reader, nullptr, nullptr) !=
          HSA_STATUS_SUCCESS ||
      hsa_executable_freeze(executable, nullptr) != HSA_STATUS_SUCCESS) {
    std::fprintf(stderr, "hsa_app: cannot load %s\n", argv[1]);
    return 1;
  }
  sim_hsa_work::Wanted stencil{"stencil", 0};
  hsa_executable_iterate_symbols(executable, sim_hsa_work::find_kernel, &stencil);
  hsa_queue_t* queue = nullptr;
  hsa_signal_t done{};
  if (stencil.object == 0 ||
      hsa_queue_create(agents[1], 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX,
                       UINT32_MAX, &queue) != HSA_STATUS_SUCCESS ||
      hsa_signal_create(1, 0, nullptr, &done) != HSA_STATUS_SUCCESS)
    return 1;
  for (int i = 0; i < iterations; ++i) {
    hsa_signal_store_screlease(done, 1);
    sim_hsa_work::dispatch(queue, done, stencil.object);
    hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_BLOCKED);
  }
  std::vector<char> source(1 << 20, 'x');
  std::vector<char> target(source.size(), 0);
  hsa_signal_store_screlease(done, 1);
  hsa_amd_memory_async_copy(target.data(), agents[1], source.data(), agents[0], source.size(), 0,
                            nullptr, done);
  hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_BLOCKED);
  usleep(static_cast<useconds_t>(hold_ms) * 1000);
  std::printf("hsa_app: %d dispatches, copy %s\n", iterations,
              target == source ? "correct" : "WRONG");
  hsa_signal_destroy(done);
  hsa_queue_destroy(queue);
  hsa_executable_destroy(executable);
  hsa_code_object_reader_destroy(reader);
  close(file);
  hsa_shut_down();
  return target == source ? 0 : 1;
}
