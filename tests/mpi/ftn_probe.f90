! Test subject for Fortran tracing (use mpi).  Exact MPI calls per rank, np = 2, N = 5:
!   MPI_Init 1, MPI_Comm_split 1, MPI_Send 6, MPI_Recv 5, MPI_Isend 5, MPI_Irecv 6,
!   MPI_Waitall 5, MPI_Wait 1, MPI_Allreduce 5, MPI_Bcast 1, MPI_Reduce 1, MPI_Barrier 1
!   (on the split communicator), MPI_Comm_free 1, MPI_Finalize 1      -> 40 events per rank
! Wildcards: rank 1's loop Recv is MPI_ANY_SOURCE; after the loop both ranks post one
! Irecv(MPI_ANY_SOURCE, MPI_ANY_TAG) completed by MPI_Wait (the wildcard flags' Fortran path).
! (MPI_Comm_rank and MPI_Comm_size are not traced.)
program ftn_probe
  use mpi
  implicit none
  integer, parameter :: n = 5
  integer :: ierr, rank, np, peer, i, sub, req(2), x, y, s, stats(MPI_STATUS_SIZE, 2)
  integer :: st(MPI_STATUS_SIZE)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  peer = 1 - rank
  call MPI_Comm_split(MPI_COMM_WORLD, 0, rank, sub, ierr)
  do i = 1, n
     if (rank == 0) then
        call MPI_Send(i, 1, MPI_INTEGER, peer, 1, MPI_COMM_WORLD, ierr)
        call MPI_Recv(x, 1, MPI_INTEGER, peer, 2, MPI_COMM_WORLD, st, ierr)
     else
        call MPI_Recv(x, 1, MPI_INTEGER, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        call MPI_Send(x, 1, MPI_INTEGER, peer, 2, MPI_COMM_WORLD, ierr)
     end if
     call MPI_Irecv(y, 1, MPI_INTEGER, peer, 3, sub, req(1), ierr)
     call MPI_Isend(i, 1, MPI_INTEGER, peer, 3, sub, req(2), ierr)
     call MPI_Waitall(2, req, stats, ierr)
     call MPI_Allreduce(i, s, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
     if (y /= i .or. s /= 2 * i) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end do
  call MPI_Irecv(y, 1, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, req(1), ierr)
  call MPI_Send(rank, 1, MPI_INTEGER, peer, 4, MPI_COMM_WORLD, ierr)
  call MPI_Wait(req(1), st, ierr)
  if (y /= peer .or. st(MPI_SOURCE) /= peer .or. st(MPI_TAG) /= 4) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  call MPI_Bcast(x, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_Reduce(x, y, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  call MPI_Barrier(sub, ierr)
  call MPI_Comm_free(sub, ierr)
  call MPI_Finalize(ierr)
  if (rank == 0) print '(a)', 'ftn_probe = OK'
end program ftn_probe
