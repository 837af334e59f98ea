#include "lib/recorder/helper_threads.hpp"

#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace rocprof::recorder {

void become_helper_thread(bool on_all_cpus, int nice) noexcept {
  const auto tid = static_cast<pid_t>(syscall(SYS_gettid));
  if (nice > 0) {
    errno = 0;
    const int own = getpriority(PRIO_PROCESS, static_cast<id_t>(tid));
    if (errno == 0) setpriority(PRIO_PROCESS, static_cast<id_t>(tid), own + nice);
  }
  if (!on_all_cpus) return;
  // Every CPU number: the kernel keeps those of the process's cpuset (a Slurm step's or a
  // container's cores) that are online, and refuses only an empty result.
  cpu_set_t every{};
  CPU_ZERO(&every);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) CPU_SET(cpu, &every);
  sched_setaffinity(tid, sizeof every, &every);
}

}  // namespace rocprof::recorder
