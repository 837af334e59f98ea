/* Test-only queries of the simulated HSA runtime (sim_hsa_runtime.cpp). */
#ifndef ROCPROF_MPI_TESTS_SIM_HSA_RUNTIME_H
#define ROCPROF_MPI_TESTS_SIM_HSA_RUNTIME_H

#ifdef __cplusplus
extern "C" {
#endif

/* How many entries of the runtime's API tables no longer point to its own functions. */
int sim_hsa_wrapped_entries(void);

#ifdef __cplusplus
}
#endif

#endif
