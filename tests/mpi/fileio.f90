! fileio PATH N: MPI-IO from Fortran (use mpi).  N times: every rank opens PATH (MPI_FILE_OPEN:
! a character argument, whose hidden length the tracer's wrapper must pass on), sets a view
! with datarep 'native' (another), writes its block with MPI_FILE_WRITE_AT_ALL, reads it
! back with MPI_FILE_READ_AT_ALL, checks it and closes; rank 0 then deletes PATH.  MPI-IO
! is counted and timed, not traced (tests/cmake/tracer.cmake: fileio_counted): 5 calls per
! iteration and rank, and rank 0's MPI_FILE_DELETE.  One MPI_Allreduce per iteration.
program fileio
  use mpi
  implicit none
  integer, parameter :: m = 4096
  integer :: ierr, rank, np, fh, i, it, n, bad, allbad
  integer :: st(MPI_STATUS_SIZE)
  integer(kind=MPI_OFFSET_KIND) :: off
  double precision :: a(m), b(m)
  character(len=1024) :: path, arg
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  call get_command_argument(1, path)
  call get_command_argument(2, arg)
  read (arg, *) n
  bad = 0
  do it = 1, n
     do i = 1, m
        a(i) = rank * 1000000 + it * 1000 + i
     end do
     call MPI_File_open(MPI_COMM_WORLD, trim(path), MPI_MODE_CREATE + MPI_MODE_RDWR, &
                        MPI_INFO_NULL, fh, ierr)
     if (ierr /= MPI_SUCCESS) call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
     call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_DOUBLE_PRECISION, &
                            MPI_DOUBLE_PRECISION, 'native', MPI_INFO_NULL, ierr)
     if (ierr /= MPI_SUCCESS) call MPI_Abort(MPI_COMM_WORLD, 3, ierr)
     off = int(rank, MPI_OFFSET_KIND) * m
     call MPI_File_write_at_all(fh, off, a, m, MPI_DOUBLE_PRECISION, st, ierr)
     call MPI_File_read_at_all(fh, off, b, m, MPI_DOUBLE_PRECISION, st, ierr)
     if (any(a /= b)) bad = bad + 1
     call MPI_File_close(fh, ierr)
     call MPI_Allreduce(bad, allbad, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
  if (rank == 0) then
     call MPI_File_delete(trim(path), MPI_INFO_NULL, ierr)
     if (allbad == 0) then
        print '(a)', 'fileio: ok'
     else
        print '(a,i0)', 'fileio: mismatches ', allbad
     end if
  end if
  call MPI_Finalize(ierr)
end program fileio
