/* rocprof-mpi extension to the roctracer API: report the calls made through a runtime's API
 * tables (as runtimes hand them to rocprofiler-register, or the HSA runtime to OnLoad).
 * Exported by libroctracer64.so in version node ROCPROF_MPI_1.0. */
#ifndef ROCPROF_MPI_API_TABLES_H
#define ROCPROF_MPI_API_TABLES_H

#include <stdint.h>

#include <roctracer/roctracer.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Installs wrappers in the API tables a runtime named `name` registered ("hsa": tables[0] is
 * its HsaApiTable), so that its calls reach the roctracer callback and activity domains.
 * Tables of other runtimes are accepted and left as they are. Only the first HSA runtime
 * instance is wrapped; later ones keep their tables. Returns 0 when the tables were accepted. */
ROCTRACER_API int rocprof_mpi_intercept_api_table(const char* name, void** tables,
                                                  uint64_t table_count);

#ifdef __cplusplus
}
#endif

#endif /* ROCPROF_MPI_API_TABLES_H */
