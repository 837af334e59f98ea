#pragma once
// How many CPUs this merge process may run on. A merge process reads and writes on helper
// threads next to its own, so a launcher that binds each process to one core (mpirun's
// default for two processes, srun without -c) halves its speed; the merge says so.

#include <string>

namespace rocprof::merge {

// A line advising more CPUs per merge process when this process may run on only one of
// several (its affinity mask, as the launcher set it); empty otherwise.
std::string one_cpu_advice();

// The CPUs this process may count on: those of its affinity mask, or its share of the node's
// when the masks of the node's `processes` merge processes overlap (mpirun --bind-to none
// gives each one every CPU).
unsigned cpus_per_process(int processes);

// Threads that add up the summary and the analysis's inputs beside the reading threads
// (Summary::watch_on_threads): half of the process's CPUs, at most 8; none (added up on the
// reading threads) with one CPU.
unsigned watch_threads(unsigned cpus);

}  // namespace rocprof::merge
