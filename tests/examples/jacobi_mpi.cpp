// The bundled example: a 2-D Jacobi solver shaped like a real HPC code. The grid is split
// into row blocks, one per rank; every iteration exchanges halo rows with the neighbours
// (non-blocking, MPI_Waitall), relaxes the interior, and every 10 iterations reduces the
// residual. ROC-TX ranges mark the phases. Usage: jacobi_mpi [N=256] [ITERATIONS=200]
#include <mpi.h>
#include <roctracer/roctx.h>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = argc > 1 ? std::atoi(argv[1]) : 256;
  const int iterations = argc > 2 ? std::atoi(argv[2]) : 200;
  const int rows = n / size + (rank < n % size ? 1 : 0);
  const int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  const int down = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;

  roctxRangePushA("setup");
  // rows + 2 halo rows. Rank 0's upper halo is the global top edge, held at 1 (its receive
  // from MPI_PROC_NULL leaves it alone); everything else starts at 0.
  std::vector<double> grid(static_cast<std::size_t>(rows + 2) * n, 0.0);
  std::vector<double> next(grid);
  if (rank == 0)
    for (int j = 0; j < n; ++j) grid[j] = next[j] = 1.0;
  roctxRangePop();

  double residual = 0;
  for (int it = 0; it < iterations; ++it) {
    roctxRangePushA("halo exchange");
    MPI_Request requests[4];
    MPI_Irecv(grid.data(), n, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, &requests[0]);
    MPI_Irecv(&grid[static_cast<std::size_t>(rows + 1) * n], n, MPI_DOUBLE, down, 0, MPI_COMM_WORLD,
              &requests[1]);
    MPI_Isend(&grid[n], n, MPI_DOUBLE, up, 0, MPI_COMM_WORLD, &requests[2]);
    MPI_Isend(&grid[static_cast<std::size_t>(rows) * n], n, MPI_DOUBLE, down, 1, MPI_COMM_WORLD,
              &requests[3]);
    MPI_Waitall(4, requests, MPI_STATUSES_IGNORE);
    roctxRangePop();

    roctxRangePushA("compute");
    double local = 0;
    for (int i = 1; i <= rows; ++i) {
      for (int j = 1; j + 1 < n; ++j) {
        const double value = 0.25 * (grid[(i - 1) * n + j] + grid[(i + 1) * n + j] +
                                     grid[i * n + j - 1] + grid[i * n + j + 1]);
        local += (value - grid[i * n + j]) * (value - grid[i * n + j]);
        next[i * n + j] = value;
      }
    }
    grid.swap(next);
    roctxRangePop();

    if (it % 10 == 9) {
      roctxRangePushA("residual");
      MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      roctxRangePop();
    }
  }
  if (rank == 0)
    std::printf("jacobi: %d ranks, %dx%d grid, %d iterations, residual %.6e\n", size, n, n,
                iterations, std::sqrt(residual));
  MPI_Finalize();
  return 0;
}
