// Two ranks, THREADS threads each (MPI_THREAD_MULTIPLE), each thread exchanging MESSAGES
// messages both ways with the other rank on tag (thread % TAGS): with fewer tags than threads,
// several threads share a stream. Blocking sends and receives on even threads, non-blocking
// ones (MPI_Irecv and MPI_Isend, then MPI_Waitall) on odd threads.
// Usage: mpi_thread_messages THREADS MESSAGES TAGS
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  if (provided < MPI_THREAD_MULTIPLE) {
    std::fprintf(stderr, "MPI_THREAD_MULTIPLE not provided\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int threads = argc > 1 ? std::atoi(argv[1]) : 4;
  const int messages = argc > 2 ? std::atoi(argv[2]) : 2000;
  const int tags = argc > 3 ? std::atoi(argv[3]) : threads;
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) MPI_Abort(MPI_COMM_WORLD, 2);
  const int peer = 1 - rank;
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([=] {
      const int tag = t % tags;
      int out = 0;
      int in = 0;
      for (int i = 0; i < messages; ++i) {
        out = i;
        if (t % 2 == 0) {
          if (rank == 0) {
            MPI_Send(&out, 1, MPI_INT, peer, tag, MPI_COMM_WORLD);
            MPI_Recv(&in, 1, MPI_INT, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          } else {
            MPI_Recv(&in, 1, MPI_INT, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&out, 1, MPI_INT, peer, tag, MPI_COMM_WORLD);
          }
        } else {
          MPI_Request requests[2];
          MPI_Irecv(&in, 1, MPI_INT, peer, tag, MPI_COMM_WORLD, &requests[0]);
          MPI_Isend(&out, 1, MPI_INT, peer, tag, MPI_COMM_WORLD, &requests[1]);
          MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
        }
      }
    });
  for (std::thread& worker : workers) worker.join();
  MPI_Finalize();
  return 0;
}
