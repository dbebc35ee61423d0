! ftn_ring — Fortran 90 MPI subject ("use mpi" bindings): ring, halo exchange, collectives,
! and a split communicator. Needs np >= 2.
!
! A periodic 1-D array of SIZE values is block-distributed over the ranks of MPI_COMM_WORLD
! (rank r owns nloc = SIZE/np or SIZE/np + 1 values). Each iteration:
!   1. token ring: every rank passes a TOKLEN-double token to rank+1 (mod np) with blocking
!      MPI_Send / MPI_Recv (even ranks send first, odd ranks receive first) and adds 1 to it;
!   2. halo exchange of width H = 8 with both ring neighbours: MPI_Irecv x2 (from left, from
!      right), MPI_Isend x2 (to left, to right), MPI_Waitall (4 requests);
!   3. compute: H explicit diffusion sub-steps on the local block plus halos (communication-
!      avoiding: the halo shrinks by one cell per sub-step);
!   4. MPI_Allreduce on MPI_COMM_WORLD (SUM, 2 doubles): global sum(u) and sum(u**2);
!   5. MPI_Reduce on the split communicator (SUM, 1 double, root 0) of the local sum(u), then
!      MPI_Bcast on the split communicator (root 0) of that group sum.
! The split communicator comes from MPI_Comm_split(MPI_COMM_WORLD, color = mod(rank, 2),
! key = rank): even and odd ranks.
!
!   usage: ftn_ring [SIZE [ITERS]]   SIZE = global array length (>= 8 np), ITERS = iterations
!   test size:       ftn_ring 40000 50          (the defaults)
!   validation size: ftn_ring 2000000 200
!
! Verification (can fail; "verification = FAILED", exit status 1):
!   - sum(u) is conserved (relative 1e-12) and sum(u**2) never grows, every iteration;
!   - after ITERS ring steps the token on rank r is the initial token of rank mod(r - ITERS, np)
!     plus ITERS, exactly;
!   - the group sums obtained with MPI_Reduce + MPI_Bcast on the split communicator add up to the
!     global sum from MPI_Allreduce (relative 1e-12).
!
! EXACT MPI CALL COUNTS, per rank, normal path (valid arguments, np >= 2), for any np:
!   MPI_Init         1
!   MPI_Comm_rank    2        (MPI_COMM_WORLD once, the split communicator once)
!   MPI_Comm_size    1        (MPI_COMM_WORLD)
!   MPI_Comm_split   1
!   MPI_Allreduce    ITERS + 2  (setup 1: initial sums; loop 1 per iteration; verification 1)
!   MPI_Barrier      2        (MPI_COMM_WORLD: end of setup, before t0; after the loop)
!   MPI_Wtime        2        (t0 after the first MPI_Barrier; t1 just before the final MPI_Reduce)
!   MPI_Send         ITERS
!   MPI_Recv         ITERS
!   MPI_Irecv        2 * ITERS
!   MPI_Isend        2 * ITERS
!   MPI_Waitall      ITERS
!   MPI_Reduce       ITERS + 1  (loop 1 per iteration on the split comm; elapsed time MAX on
!                                MPI_COMM_WORLD, root 0, at the end)
!   MPI_Bcast        ITERS      (split comm)
!   MPI_Comm_free    1        (the split communicator)
!   MPI_Finalize     1
! No other MPI routine is called. Order within one iteration: Send, Recv (even ranks) or Recv,
! Send (odd ranks); Irecv(left), Irecv(right), Isend(left), Isend(right), Waitall; compute;
! Allreduce; Reduce; Bcast. Messages: token TOKLEN = 1024 doubles, halos H = 8 doubles.
! Bad arguments (or np < 2): rank 0 writes one line to stderr, every rank calls MPI_Init,
! MPI_Comm_rank, MPI_Comm_size, MPI_Finalize only, and the exit status is 2.

program ftn_ring
  use mpi
  use, intrinsic :: iso_fortran_env, only: error_unit
  implicit none

  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: H = 8, TOKLEN = 1024
  integer, parameter :: TAG_TOKEN = 1, TAG_TO_RIGHT = 2, TAG_TO_LEFT = 3
  integer(8), parameter :: DEF_SIZE = 40000_8, DEF_ITERS = 50_8
  real(dp), parameter :: ALPHA = 0.25_dp, PI = 3.14159265358979323846_dp

  integer :: ierr, rank, np, subcomm, subrank, left, right, nloc, it, k, s
  integer :: niters, req(4), nbad_local
  integer(8) :: gsize, iters, offset, gidx
  logical :: bad
  real(dp), allocatable :: u(:), v(:), tok(:), tokin(:)
  real(dp) :: loc(2), glob(2), sum0, sumsq_prev, lsum, grpsum, t0, elapsed, tmax
  real(dp) :: fin_loc(3), fin_glob(3), expect
  character(len=32) :: tstr

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)

  ! ---- arguments
  gsize = DEF_SIZE
  iters = DEF_ITERS
  bad = command_argument_count() > 2
  if (.not. bad .and. command_argument_count() >= 1) call get_arg(1, gsize, bad)
  if (.not. bad .and. command_argument_count() >= 2) call get_arg(2, iters, bad)
  if (.not. bad) bad = gsize < 8_8 * np .or. gsize > 2000000000_8 .or. iters < 1_8 &
                       .or. iters > 100000000_8
  if (bad .or. np < 2) then
    if (rank == 0) then
      if (np < 2) then
        write (error_unit, '(A)') 'ftn_ring: needs at least 2 MPI processes (a ring)'
      else
        write (error_unit, '(A,I0,A)') 'usage: ftn_ring [SIZE [ITERS]]  (SIZE: array length >= ', &
          8 * np, '; ITERS >= 1; defaults 40000 50)'
      end if
    end if
    call MPI_Finalize(ierr)
    stop 2, quiet=.true.
  end if
  niters = int(iters)

  ! ---- setup
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, subcomm, ierr)
  call MPI_Comm_rank(subcomm, subrank, ierr)
  left = mod(rank - 1 + np, np)
  right = mod(rank + 1, np)
  nloc = int(gsize / np)
  offset = int(rank, 8) * nloc + min(int(rank, 8), mod(gsize, int(np, 8)))
  if (rank < mod(gsize, int(np, 8))) nloc = nloc + 1

  allocate (u(1 - H:nloc + H), v(1 - H:nloc + H), tok(TOKLEN), tokin(TOKLEN))
  u = 0.0_dp
  v = 0.0_dp
  do k = 1, nloc
    gidx = offset + k - 1
    u(k) = initial(gidx, gsize)
  end do
  do k = 1, TOKLEN
    tok(k) = 1000.0_dp * rank + k
  end do
  loc(1) = sum(u(1:nloc))
  loc(2) = sum(u(1:nloc)**2)
  call MPI_Allreduce(loc, glob, 2, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  sum0 = glob(1)
  sumsq_prev = glob(2)
  nbad_local = 0

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  t0 = MPI_Wtime()

  ! ---- main loop: the same MPI calls on every rank in every iteration
  do it = 1, niters
    ! 1. token ring, blocking, parity ordered
    if (mod(rank, 2) == 0) then
      call MPI_Send(tok, TOKLEN, MPI_DOUBLE_PRECISION, right, TAG_TOKEN, MPI_COMM_WORLD, ierr)
      call MPI_Recv(tokin, TOKLEN, MPI_DOUBLE_PRECISION, left, TAG_TOKEN, MPI_COMM_WORLD, &
                    MPI_STATUS_IGNORE, ierr)
    else
      call MPI_Recv(tokin, TOKLEN, MPI_DOUBLE_PRECISION, left, TAG_TOKEN, MPI_COMM_WORLD, &
                    MPI_STATUS_IGNORE, ierr)
      call MPI_Send(tok, TOKLEN, MPI_DOUBLE_PRECISION, right, TAG_TOKEN, MPI_COMM_WORLD, ierr)
    end if
    tok = tokin + 1.0_dp

    ! 2. halo exchange with both neighbours
    call MPI_Irecv(u(1 - H), H, MPI_DOUBLE_PRECISION, left, TAG_TO_RIGHT, MPI_COMM_WORLD, &
                   req(1), ierr)
    call MPI_Irecv(u(nloc + 1), H, MPI_DOUBLE_PRECISION, right, TAG_TO_LEFT, MPI_COMM_WORLD, &
                   req(2), ierr)
    call MPI_Isend(u(1), H, MPI_DOUBLE_PRECISION, left, TAG_TO_LEFT, MPI_COMM_WORLD, &
                   req(3), ierr)
    call MPI_Isend(u(nloc - H + 1), H, MPI_DOUBLE_PRECISION, right, TAG_TO_RIGHT, &
                   MPI_COMM_WORLD, req(4), ierr)
    call MPI_Waitall(4, req, MPI_STATUSES_IGNORE, ierr)

    ! 3. H diffusion sub-steps (H is even, so the result ends up back in u)
    do s = 1, H, 2
      call diffuse(u, v, nloc, 1 - H + s, nloc + H - s)
      call diffuse(v, u, nloc, 1 - H + s + 1, nloc + H - s - 1)
    end do

    ! 4. global sums
    loc(1) = sum(u(1:nloc))
    loc(2) = sum(u(1:nloc)**2)
    call MPI_Allreduce(loc, glob, 2, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (abs(glob(1) - sum0) > 1.0e-12_dp * abs(sum0)) nbad_local = nbad_local + 1
    if (glob(2) > sumsq_prev * (1.0_dp + 1.0e-13_dp)) nbad_local = nbad_local + 1
    sumsq_prev = glob(2)

    ! 5. group sum on the split communicator
    lsum = loc(1)
    call MPI_Reduce(lsum, grpsum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, subcomm, ierr)
    call MPI_Bcast(grpsum, 1, MPI_DOUBLE_PRECISION, 0, subcomm, ierr)
  end do

  call MPI_Barrier(MPI_COMM_WORLD, ierr)

  ! ---- verification
  expect = 0.0_dp
  do k = 1, TOKLEN
    expect = 1000.0_dp * modulo(rank - niters, np) + k + niters
    if (abs(tok(k) - expect) > 0.0_dp) then
      nbad_local = nbad_local + 1
      exit
    end if
  end do
  fin_loc(1) = 0.0_dp
  if (subrank == 0) fin_loc(1) = grpsum
  fin_loc(2) = real(nbad_local, dp)
  fin_loc(3) = 0.0_dp
  call MPI_Allreduce(fin_loc, fin_glob, 3, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  bad = fin_glob(2) > 0.5_dp .or. abs(fin_glob(1) - glob(1)) > 1.0e-12_dp * abs(glob(1))
  if (bad .and. rank == 0) then
    write (error_unit, '(A,I0,A,ES24.16,A,ES24.16)') 'ftn_ring: ', int(fin_glob(2)), &
      ' failed checks; group sums ', fin_glob(1), ' vs global ', glob(1)
  end if

  elapsed = MPI_Wtime() - t0
  call MPI_Reduce(elapsed, tmax, 1, MPI_DOUBLE_PRECISION, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
  call MPI_Comm_free(subcomm, ierr)
  if (rank == 0) then
    write (tstr, '(F20.6)') tmax
    write (*, '(A)') 'app = ftn_ring'
    write (*, '(A,I0)') 'np = ', np
    write (*, '(3A)') 'time = ', trim(adjustl(tstr)), ' s'
    if (bad) then
      write (*, '(A)') 'verification = FAILED'
    else
      write (*, '(A)') 'verification = OK'
    end if
    flush (6)
  end if
  deallocate (u, v, tok, tokin)
  call MPI_Finalize(ierr)
  if (bad) stop 1, quiet=.true.

contains

  ! positive decimal integer argument number i; sets bad on anything else
  subroutine get_arg(i, val, bad)
    integer, intent(in) :: i
    integer(8), intent(out) :: val
    logical, intent(inout) :: bad
    character(len=64) :: str
    integer :: length, stat, j
    call get_command_argument(i, str, length, stat)
    val = 0
    if (stat /= 0 .or. length < 1 .or. length > 12) then
      bad = .true.
      return
    end if
    do j = 1, length
      if (str(j:j) < '0' .or. str(j:j) > '9') then
        bad = .true.
        return
      end if
    end do
    read (str(1:length), *, iostat=stat) val
    if (stat /= 0) bad = .true.
  end subroutine get_arg

  ! smooth periodic profile plus a short-wavelength part, at global index g of n
  pure function initial(g, n) result(x)
    integer(8), intent(in) :: g, n
    real(dp) :: x, t
    t = 2.0_dp * PI * real(g, dp) / real(n, dp)
    x = 1.0_dp + 0.5_dp * sin(3.0_dp * t) + 0.25_dp * cos(17.0_dp * t) + 0.1_dp * sin(0.7_dp * real(g, dp))
  end function initial

  ! one explicit diffusion step on cells lo..hi
  subroutine diffuse(a, b, nloc, lo, hi)
    integer, intent(in) :: nloc, lo, hi
    real(dp), intent(in) :: a(1 - H:nloc + H)
    real(dp), intent(inout) :: b(1 - H:nloc + H)
    integer :: i
    do i = lo, hi
      b(i) = a(i) + ALPHA * (a(i - 1) - 2.0_dp * a(i) + a(i + 1))
    end do
  end subroutine diffuse

end program ftn_ring
