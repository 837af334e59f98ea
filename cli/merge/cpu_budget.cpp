#include "cli/merge/cpu_budget.hpp"

#include <sched.h>
#include <unistd.h>

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

}  // namespace rocprof::cli
