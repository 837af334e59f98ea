/* rocprof-mpi: the command kinds of HIP 5.2's device work (ACTIVITY_DOMAIN_HIP_OPS records'
 * `kind`: OpenCL command types, as HIP's ROCclr reports them) and their names, as
 * hipGetCmdName gives them. Shared by the tracer (roctracer_op_string) and the merge. */
#ifndef ROCPROF_MPI_HIP_COMMANDS_H
#define ROCPROF_MPI_HIP_COMMANDS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The name of command kind `kind`, NULL for one HIP does not report. */
static inline const char* rocprof_mpi_hip_command_name(uint32_t kind) {
  switch (kind) {
    case 0x11F0:
      return "KernelExecution";
    case 0x11F3:
      return "CopyDeviceToHost";
    case 0x11F4:
      return "CopyHostToDevice";
    case 0x11F5:
      return "CopyDeviceToDevice";
    case 0x1201:
      return "CopyDeviceToHost2D";
    case 0x1202:
      return "CopyHostToDevice2D";
    case 0x1203:
      return "CopyDeviceToDevice2D";
    case 0x1207:
      return "FillBuffer";
    default:
      return NULL;
  }
}

/* The kind named `name`, 0 for none. */
static inline uint32_t rocprof_mpi_hip_command_kind(const char* name) {
  static const uint32_t kinds[] = {0x11F0, 0x11F3, 0x11F4, 0x11F5, 0x1201, 0x1202, 0x1203, 0x1207};
  size_t i;
  const char* known;
  const char* a;
  const char* b;
  if (name == NULL) return 0;
  for (i = 0; i < sizeof kinds / sizeof kinds[0]; ++i) {
    known = rocprof_mpi_hip_command_name(kinds[i]);
    for (a = known, b = name; *a != '\0' && *a == *b; ++a, ++b) {
    }
    if (*a == '\0' && *b == '\0') return kinds[i];
  }
  return 0;
}

#define ROCPROF_MPI_HIP_KERNEL_EXECUTION 0x11F0u

#ifdef __cplusplus
}
#endif

#endif /* ROCPROF_MPI_HIP_COMMANDS_H */
