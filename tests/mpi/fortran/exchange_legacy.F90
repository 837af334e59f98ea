! The exchange of exchange.c through the mpif.h binding (built as is) or the `use mpi`
! module (built with -DUSE_MPI_MODULE): the same calls in the same order, so that its
! recorded MPI rows equal the C program's.
program exchange
#ifdef USE_MPI_MODULE
  use mpi
#endif
  implicit none
#ifndef USE_MPI_MODULE
  include 'mpif.h'
#endif
  integer :: ierr, rank, nprocs, right, left, sub, subrank, index, value, length
  character(len=MPI_MAX_OBJECT_NAME) :: name
  integer :: counts(4), displacements(4), types(4), i
  integer :: status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 2), requests(2)
  double precision :: out(100), in(100), total(4)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  out = rank

  ! Blocking, with a status and ignoring it.
  if (mod(rank, 2) == 0) then
    call MPI_Send(out, 100, MPI_DOUBLE_PRECISION, right, 1, MPI_COMM_WORLD, ierr)
    call MPI_Recv(in, 100, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, status, ierr)
  else
    call MPI_Recv(in, 100, MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Send(out, 50, MPI_DOUBLE_PRECISION, left, 2, MPI_COMM_WORLD, ierr)
  end if

  ! Non-blocking, completed with statuses, ignoring them, one by one and any.
  call MPI_Irecv(in, 100, MPI_DOUBLE_PRECISION, left, 3, MPI_COMM_WORLD, requests(1), ierr)
  call MPI_Isend(out, 100, MPI_DOUBLE_PRECISION, right, 3, MPI_COMM_WORLD, requests(2), ierr)
  call MPI_Waitall(2, requests, statuses, ierr)
  call MPI_Irecv(in, 20, MPI_DOUBLE_PRECISION, right, 4, MPI_COMM_WORLD, requests(1), ierr)
  call MPI_Isend(out, 20, MPI_DOUBLE_PRECISION, left, 4, MPI_COMM_WORLD, requests(2), ierr)
  call MPI_Waitall(2, requests, MPI_STATUSES_IGNORE, ierr)
  call MPI_Irecv(in, 10, MPI_DOUBLE_PRECISION, left, 5, MPI_COMM_WORLD, requests(1), ierr)
  call MPI_Isend(out, 10, MPI_DOUBLE_PRECISION, right, 5, MPI_COMM_WORLD, requests(2), ierr)
  call MPI_Wait(requests(2), MPI_STATUS_IGNORE, ierr)
  call MPI_Waitany(1, requests, index, status, ierr)
  call MPI_Sendrecv(out, 8, MPI_DOUBLE_PRECISION, right, 6, in, 8, MPI_DOUBLE_PRECISION, left, &
                    6, MPI_COMM_WORLD, status, ierr)

  ! Collectives, in place and not.
  total = rank
  call MPI_Allreduce(MPI_IN_PLACE, total, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Bcast(total, 4, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
  call MPI_Reduce(out, in, 100, MPI_DOUBLE_PRECISION, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
  ! Types per process (4 ranks): rank + i elements between this rank and rank i - 1.
  do i = 1, 4
    counts(i) = i + rank
    displacements(i) = 8 * 10 * (i - 1)
    types(i) = MPI_DOUBLE_PRECISION
  end do
  call MPI_Alltoallw(out, counts, displacements, types, in, counts, displacements, types, &
                     MPI_COMM_WORLD, ierr)

  ! A communicator split in two.
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, sub, ierr)
  call MPI_Comm_rank(sub, subrank, ierr)
  call MPI_Comm_set_name(sub, 'halves', ierr)
  call MPI_Comm_get_name(sub, name, length, ierr)
  value = rank
  call MPI_Allreduce(MPI_IN_PLACE, value, 1, MPI_INTEGER, MPI_SUM, sub, ierr)
  call MPI_Barrier(sub, ierr)
  call MPI_Comm_free(sub, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a, f5.1, 1x, i0, 1x, i0, 1x, a)', 'exchange', total(1), value, index, &
                        name(1:length)
  call MPI_Finalize(ierr)
end program exchange
