#include "cli/merge/cpu_budget.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>

namespace rocprof::cli {

std::string one_cpu_advice() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (::sched_getaffinity(0, sizeof allowed, &allowed) != 0) return {};
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  if (CPU_COUNT(&allowed) != 1 || online < 2) return {};
  return "this merge process may run on 1 CPU only (its affinity, as its launcher or taskset "
         "set it); it reads and writes on helper threads, so give each merge process 2-4 CPUs "
         "(srun -c 4; mpirun --bind-to none or --map-by slot:PE=4)";
}

unsigned cpus_per_process(int processes) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  if (::sched_getaffinity(0, sizeof allowed, &allowed) != 0) return online > 0 ? online : 1;
  const auto mine = static_cast<unsigned>(CPU_COUNT(&allowed));
  if (processes <= 1 || online <= 0 ||
      mine * static_cast<unsigned long>(processes) <= static_cast<unsigned long>(online))
    return mine;
  return std::max(1U, std::min(mine, static_cast<unsigned>(online / processes)));
}

}  // namespace rocprof::cli
