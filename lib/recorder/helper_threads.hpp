// Where and how the recorder's own threads (the writer, the pool's delivery thread) run
// beside the application's.
#pragma once

namespace rocprof::recorder {

// Makes the calling thread a helper: `nice` above the process's own niceness (0: the
// application's priority, which keeps the flush deadline on a node whose cores are all busy;
// more: it yields to the application's threads), and with `on_all_cpus` it may run on every
// CPU the process's cpuset allows instead of only the CPUs the rank is bound to. A rank bound
// to one core that busy-polls in MPI would otherwise share that core with its own writer; on
// a node with idle cores the helper takes one of those. Failures leave the thread as it was.
void become_helper_thread(bool on_all_cpus, int nice) noexcept;

}  // namespace rocprof::recorder
