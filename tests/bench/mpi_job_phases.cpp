// A short MPI job that times its own phases, for what tracing adds to a whole job
// (job_fixed_cost.py runs it plain and traced). Each rank prints one line:
//   "phases RANK MAIN_BEGIN_NS INIT_NS WORK_NS FINALIZE_NS MAIN_END_NS"
// MAIN_BEGIN_NS and MAIN_END_NS are CLOCK_REALTIME (comparable with the launching script's
// clock: what comes before main is start-up, what comes after is exit); the others are
// durations. The work is ITERATIONS rounds of a neighbour exchange and an allreduce.
#include <mpi.h>

#include <ctime>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {

std::int64_t clock_ns(clockid_t clock) {
  timespec now{};
  clock_gettime(clock, &now);
  return std::int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
}

}  // namespace

int main(int argc, char** argv) {
  const std::int64_t main_begin = clock_ns(CLOCK_REALTIME);
  const std::int64_t init_begin = clock_ns(CLOCK_MONOTONIC);
  MPI_Init(&argc, &argv);
  const std::int64_t work_begin = clock_ns(CLOCK_MONOTONIC);
  int rank = 0;
  int ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 1000;
  double halo[2] = {1.0, 2.0};
  double sum = 0.0;
  for (int i = 0; i < iterations; ++i) {
    MPI_Sendrecv(&halo[0], 1, MPI_DOUBLE, (rank + 1) % ranks, 0, &halo[1], 1, MPI_DOUBLE,
                 (rank + ranks - 1) % ranks, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Allreduce(&halo[1], &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  const std::int64_t finalize_begin = clock_ns(CLOCK_MONOTONIC);
  MPI_Finalize();
  const std::int64_t finalize_end = clock_ns(CLOCK_MONOTONIC);
  std::printf("phases %d %lld %lld %lld %lld %lld\n", rank, static_cast<long long>(main_begin),
              static_cast<long long>(work_begin - init_begin),
              static_cast<long long>(finalize_begin - work_begin),
              static_cast<long long>(finalize_end - finalize_begin),
              static_cast<long long>(clock_ns(CLOCK_REALTIME)));
  return sum > 0.0 ? 0 : 1;
}
