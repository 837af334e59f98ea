/* The C twin of the Fortran exchange programs (exchange_legacy.F90, exchange_f08.f90): the
 * same MPI calls in the same order, with the C datatypes of the same sizes. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank, nprocs, sub_rank, index, value, length;
  char name[MPI_MAX_OBJECT_NAME];
  MPI_Comm sub;
  MPI_Status status, statuses[2];
  MPI_Request requests[2];
  double out[100], in[100], total[4];

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  const int right = (rank + 1) % nprocs;
  const int left = (rank + nprocs - 1) % nprocs;
  for (int i = 0; i < 100; ++i) out[i] = rank;

  if (rank % 2 == 0) {
    MPI_Send(out, 100, MPI_DOUBLE, right, 1, MPI_COMM_WORLD);
    MPI_Recv(in, 100, MPI_DOUBLE, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &status);
  } else {
    MPI_Recv(in, 100, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(out, 50, MPI_DOUBLE, left, 2, MPI_COMM_WORLD);
  }

  MPI_Irecv(in, 100, MPI_DOUBLE, left, 3, MPI_COMM_WORLD, &requests[0]);
  MPI_Isend(out, 100, MPI_DOUBLE, right, 3, MPI_COMM_WORLD, &requests[1]);
  MPI_Waitall(2, requests, statuses);
  MPI_Irecv(in, 20, MPI_DOUBLE, right, 4, MPI_COMM_WORLD, &requests[0]);
  MPI_Isend(out, 20, MPI_DOUBLE, left, 4, MPI_COMM_WORLD, &requests[1]);
  MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
  MPI_Irecv(in, 10, MPI_DOUBLE, left, 5, MPI_COMM_WORLD, &requests[0]);
  MPI_Isend(out, 10, MPI_DOUBLE, right, 5, MPI_COMM_WORLD, &requests[1]);
  MPI_Wait(&requests[1], MPI_STATUS_IGNORE);
  MPI_Waitany(1, requests, &index, &status);
  MPI_Sendrecv(out, 8, MPI_DOUBLE, right, 6, in, 8, MPI_DOUBLE, left, 6, MPI_COMM_WORLD, &status);

  for (int i = 0; i < 4; ++i) total[i] = rank;
  MPI_Allreduce(MPI_IN_PLACE, total, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Bcast(total, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Reduce(out, in, 100, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  /* Types per process (4 ranks): rank + i + 1 elements between this rank and rank i. */
  int counts[4], displacements[4];
  MPI_Datatype types[4];
  for (int i = 0; i < 4; ++i) {
    counts[i] = i + rank + 1;
    displacements[i] = 8 * 10 * i;
    types[i] = MPI_DOUBLE;
  }
  MPI_Alltoallw(out, counts, displacements, types, in, counts, displacements, types,
                MPI_COMM_WORLD);

  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &sub);
  MPI_Comm_rank(sub, &sub_rank);
  MPI_Comm_set_name(sub, "halves");
  MPI_Comm_get_name(sub, name, &length);
  value = rank;
  MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT, MPI_SUM, sub);
  MPI_Barrier(sub);
  MPI_Comm_free(&sub);
  MPI_Barrier(MPI_COMM_WORLD);
  /* Fortran counts the index from 1. */
  if (rank == 0) printf("exchange %5.1f %d %d %s\n", total[0], value, index + 1, name);
  MPI_Finalize();
  return 0;
}
