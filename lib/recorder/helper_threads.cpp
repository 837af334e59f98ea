#include "lib/recorder/helper_threads.hpp"

#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace rocprof::recorder {
namespace {

// Under CFS a nice-10 thread gets about a tenth of a core that a busy rank also wants.
constexpr int kHelperNice = 10;

}  // namespace

void become_helper_thread(bool on_all_cpus) noexcept {
  const auto tid = static_cast<pid_t>(syscall(SYS_gettid));
  setpriority(PRIO_PROCESS, static_cast<id_t>(tid), kHelperNice);
  if (!on_all_cpus) return;
  // Every CPU number: the kernel keeps those of the process's cpuset (a Slurm step's or a
  // container's cores) that are online, and refuses only an empty result.
  cpu_set_t every{};
  CPU_ZERO(&every);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) CPU_SET(cpu, &every);
  sched_setaffinity(tid, sizeof every, &every);
}

}  // namespace rocprof::recorder
