#include "merge/pipeline/cpu_budget.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <optional>

namespace rocprof::merge {
namespace {

// The CPUs of this process's affinity mask, if it can be read.
std::optional<unsigned> allowed_cpus() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (::sched_getaffinity(0, sizeof allowed, &allowed) != 0) return std::nullopt;
  return static_cast<unsigned>(CPU_COUNT(&allowed));
}

long online_cpus() { return ::sysconf(_SC_NPROCESSORS_ONLN); }

}  // namespace

std::string one_cpu_advice() {
  if (allowed_cpus() != 1U || online_cpus() < 2) return {};
  return "this merge process may run on 1 CPU only (its affinity, as its launcher or taskset "
         "set it); it reads and writes on helper threads, so give each merge process 2-4 CPUs "
         "(srun -c 4; mpirun --bind-to none or --map-by slot:PE=4)";
}

unsigned cpus_per_process(int processes) {
  const long online = online_cpus();
  const std::optional<unsigned> mine = allowed_cpus();
  if (!mine) return online > 0 ? static_cast<unsigned>(online) : 1;
  if (processes <= 1 || online <= 0 ||
      *mine * static_cast<unsigned long>(processes) <= static_cast<unsigned long>(online))
    return *mine;
  return std::max(1U, std::min(*mine, static_cast<unsigned>(online / processes)));
}

unsigned watch_threads(unsigned cpus) {
  if (cpus <= 1) return 0;
  return std::clamp(cpus / 2, 1U, 8U);
}

}  // namespace rocprof::merge
