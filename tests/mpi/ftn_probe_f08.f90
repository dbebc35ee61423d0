! ftn_probe.f90 in `use mpi_f08` (Open MPI's mpi_send_f08_ & co., which the tracer answers
! to as well): the same calls, counts and wildcards, np = 2, N = 5 -> 40 events per rank.
! Some calls leave the optional ierror out (the wrappers take its absence); the buffers
! are plain variables (the non-descriptor bindings).
program ftn_probe_f08
  use mpi_f08
  implicit none
  integer, parameter :: n = 5
  integer :: ierr, rank, np, peer, i, x, y, s
  type(MPI_Comm) :: sub
  type(MPI_Request) :: req(2)
  type(MPI_Status) :: st, stats(2)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  peer = 1 - rank
  call MPI_Comm_split(MPI_COMM_WORLD, 0, rank, sub, ierr)
  do i = 1, n
     if (rank == 0) then
        call MPI_Send(i, 1, MPI_INTEGER, peer, 1, MPI_COMM_WORLD)
        call MPI_Recv(x, 1, MPI_INTEGER, peer, 2, MPI_COMM_WORLD, st, ierr)
     else
        call MPI_Recv(x, 1, MPI_INTEGER, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
        call MPI_Send(x, 1, MPI_INTEGER, peer, 2, MPI_COMM_WORLD, ierr)
     end if
     call MPI_Irecv(y, 1, MPI_INTEGER, peer, 3, sub, req(1), ierr)
     call MPI_Isend(i, 1, MPI_INTEGER, peer, 3, sub, req(2))
     call MPI_Waitall(2, req, stats, ierr)
     call MPI_Allreduce(i, s, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
     if (y /= i .or. s /= 2 * i) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end do
  call MPI_Irecv(y, 1, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, req(1), ierr)
  call MPI_Send(rank, 1, MPI_INTEGER, peer, 4, MPI_COMM_WORLD, ierr)
  call MPI_Wait(req(1), st)
  if (y /= peer .or. st%MPI_SOURCE /= peer .or. st%MPI_TAG /= 4) call MPI_Abort(MPI_COMM_WORLD, 1)
  call MPI_Bcast(x, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_Reduce(x, y, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD)
  call MPI_Barrier(sub, ierr)
  call MPI_Comm_free(sub)
  call MPI_Finalize()
  if (rank == 0) print '(a)', 'ftn_probe_f08 = OK'
end program ftn_probe_f08
