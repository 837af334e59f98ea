// Ping-pong latency between ranks 0 and 1 (MPI_Send / MPI_Recv), for the cost the PMPI
// wrappers add: run it with and without LD_PRELOAD of librocprof-mpi-pmpi.so (see
// mpi_overhead.py, which alternates both in one run). Prints one line per message size:
// "pingpong BYTES median_one_way_ns" over REPETITIONS batches of ITERATIONS round trips,
// then "call NAME median_ns_per_call" for calls that return at once (MPI_Send to
// MPI_PROC_NULL, MPI_Comm_rank): the wrappers' own cost per call without waiting on a peer,
// and the two clock reads a wrapper may take twice (clock_gettime(CLOCK_BOOTTIME), and the
// lfence-ordered rdtsc of lib/core/tsc.hpp), for the floor under that cost.
#include <mpi.h>
#include <x86intrin.h>

#include <ctime>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 20000;
  const int repetitions = argc > 2 ? std::atoi(argv[2]) : 7;
  int ranks = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  for (const int bytes : {8, 65536}) {
    if (ranks < 2) break;  // one rank: only the per-call costs below
    std::vector<char> buffer(static_cast<std::size_t>(bytes));
    std::vector<double> one_way_ns;
    for (int r = 0; r < repetitions + 1; ++r) {  // the first batch warms up
      MPI_Barrier(MPI_COMM_WORLD);
      const double start = MPI_Wtime();
      for (int i = 0; i < iterations; ++i) {
        if (rank == 0) {
          MPI_Send(buffer.data(), bytes, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
          MPI_Recv(buffer.data(), bytes, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
          MPI_Recv(buffer.data(), bytes, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Send(buffer.data(), bytes, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
        }
      }
      const double elapsed = MPI_Wtime() - start;
      if (r > 0) one_way_ns.push_back(elapsed / iterations / 2 * 1e9);
    }
    std::sort(one_way_ns.begin(), one_way_ns.end());
    if (rank == 0) std::printf("pingpong %d %.1f\n", bytes, one_way_ns[one_way_ns.size() / 2]);
  }
  // Calls that return at once: what one wrapped call costs in itself.
  auto per_call = [&](const char* name, auto&& call) {
    std::vector<double> ns;
    const int calls = iterations * 10;
    for (int r = 0; r < repetitions + 1; ++r) {
      const double start = MPI_Wtime();
      for (int i = 0; i < calls; ++i) call();
      if (r > 0) ns.push_back((MPI_Wtime() - start) / calls * 1e9);
    }
    std::sort(ns.begin(), ns.end());
    if (rank == 0) std::printf("call %s %.1f\n", name, ns[ns.size() / 2]);
  };
  char byte = 0;
  per_call("MPI_Send_PROC_NULL",
           [&] { MPI_Send(&byte, 1, MPI_CHAR, MPI_PROC_NULL, 0, MPI_COMM_WORLD); });
  int me = 0;
  per_call("MPI_Comm_rank", [&] { MPI_Comm_rank(MPI_COMM_WORLD, &me); });
  timespec now{};
  per_call("clock_gettime_BOOTTIME", [&] { clock_gettime(CLOCK_BOOTTIME, &now); });
  volatile std::uint64_t tick = 0;
  per_call("rdtsc_lfence", [&] {
    _mm_lfence();
    tick = __rdtsc();
  });
  MPI_Finalize();
  return 0;
}
