// Who this process is in the job, from the launcher's environment: world rank and size,
// job id, host name. The MPI layer corrects rank and size once MPI is initialised.
#pragma once

#include <cstdint>
#include <string>

namespace rocprof::settings {

struct Identity {
  std::int32_t rank = -1;  // -1: not launched as part of a parallel job
  std::int32_t size = -1;
  std::string job_id;  // scheduler job id or PMIx namespace (file-name safe), "" if none
  std::string hostname;
  std::uint32_t pid = 0;
};

// Rank from OMPI_COMM_WORLD_RANK, then PMIX_RANK, then SLURM_PROCID (last: under mpirun in
// an sbatch allocation every process sees SLURM_PROCID=0); size likewise.
Identity identity_from_environment();

// Expands %rank%, %size%, %pid%, %hostname%, %job% and %env{NAME}% in `pattern`. An
// unknown rank or job expands to "pid<PID>", an unknown size to "unknown", an unset
// variable to "". False with `error` for any other %...% sequence.
bool expand_placeholders(const std::string& pattern, const Identity& identity, std::string& out,
                         std::string& error);

}  // namespace rocprof::settings
