! The exchange of exchange.c through the `use mpi_f08` module: the same calls in the same
! order, without the optional ierror, so that its recorded MPI rows equal the C program's.
program exchange
  use mpi_f08
  implicit none
  integer :: rank, nprocs, right, left, subrank, index, value, length
  character(len=MPI_MAX_OBJECT_NAME) :: name
  integer :: counts(4), displacements(4), i
  type(MPI_Datatype) :: types(4)
  type(MPI_Comm) :: sub
  type(MPI_Status) :: status, statuses(2)
  type(MPI_Request) :: requests(2)
  double precision :: out(100), in(100), total(4)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  out = rank

  if (mod(rank, 2) == 0) then
    call MPI_Send(out, 100, MPI_DOUBLE_PRECISION, right, 1, MPI_COMM_WORLD)
    call MPI_Recv(in, 100, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, status)
  else
    call MPI_Recv(in, 100, MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    call MPI_Send(out, 50, MPI_DOUBLE_PRECISION, left, 2, MPI_COMM_WORLD)
  end if

  call MPI_Irecv(in, 100, MPI_DOUBLE_PRECISION, left, 3, MPI_COMM_WORLD, requests(1))
  call MPI_Isend(out, 100, MPI_DOUBLE_PRECISION, right, 3, MPI_COMM_WORLD, requests(2))
  call MPI_Waitall(2, requests, statuses)
  call MPI_Irecv(in, 20, MPI_DOUBLE_PRECISION, right, 4, MPI_COMM_WORLD, requests(1))
  call MPI_Isend(out, 20, MPI_DOUBLE_PRECISION, left, 4, MPI_COMM_WORLD, requests(2))
  call MPI_Waitall(2, requests, MPI_STATUSES_IGNORE)
  call MPI_Irecv(in, 10, MPI_DOUBLE_PRECISION, left, 5, MPI_COMM_WORLD, requests(1))
  call MPI_Isend(out, 10, MPI_DOUBLE_PRECISION, right, 5, MPI_COMM_WORLD, requests(2))
  call MPI_Wait(requests(2), MPI_STATUS_IGNORE)
  call MPI_Waitany(1, requests, index, status)
  call MPI_Sendrecv(out, 8, MPI_DOUBLE_PRECISION, right, 6, in, 8, MPI_DOUBLE_PRECISION, left, &
                    6, MPI_COMM_WORLD, status)

  total = rank
  call MPI_Allreduce(MPI_IN_PLACE, total, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Bcast(total, 4, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD)
  call MPI_Reduce(out, in, 100, MPI_DOUBLE_PRECISION, MPI_MAX, 0, MPI_COMM_WORLD)
  do i = 1, 4
    counts(i) = i + rank
    displacements(i) = 8 * 10 * (i - 1)
    types(i) = MPI_DOUBLE_PRECISION
  end do
  call MPI_Alltoallw(out, counts, displacements, types, in, counts, displacements, types, &
                     MPI_COMM_WORLD)

  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, sub)
  call MPI_Comm_rank(sub, subrank)
  call MPI_Comm_set_name(sub, 'halves')
  call MPI_Comm_get_name(sub, name, length)
  value = rank
  call MPI_Allreduce(MPI_IN_PLACE, value, 1, MPI_INTEGER, MPI_SUM, sub)
  call MPI_Barrier(sub)
  call MPI_Comm_free(sub)
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a, f5.1, 1x, i0, 1x, i0, 1x, a)', 'exchange', total(1), value, index, &
                        name(1:length)
  call MPI_Finalize()
end program exchange
