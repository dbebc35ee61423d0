# Shared by the benchmark scripts here (sourced): MPI as root, quiet tracer, a launcher
# for 2 cores, median of numbers on stdin, "key = value" fields of pas2p's output, the
# launch time, ranges.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PAS2P_QUIET=1
# Ranks bound to cores (one per core while np <= cores; several per core beyond): unbound,
# the kernel often starts both ranks of np 2 on one core and moves one a few milliseconds
# later, so a run's first steps took 2x their time in 2 of 5 runs (md 40 1000, cartsweep
# 96 500: the early occurrences an early stop times), which bound runs never did; Open MPI
# binds by default too (`--bind-to core` for np <= 2), and so do batch schedulers.
mpirun=(mpirun --oversubscribe --bind-to core:overload-allowed --mca mpi_yield_when_idle 1)
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
field() { awk -v k="$1" '$0 ~ "^"k" = " {print $3}'; }
need_build() { # need_build BUILD_DIR: pas2p and the benchmark programs are built
  [[ -x $1/bin/pas2p && -x $1/bench/pingpong && -x $1/bench/mpi_empty ]] || { echo "build first: cmake --build $1" >&2; exit 1; }
}
# launch_time NP [PROGRAM]: median wall (s) of 5 `mpirun -np NP PROGRAM`; PROGRAM defaults
# to the empty MPI program (bench/mpi_empty: MPI_Init, MPI_Finalize), the launch a run pays
# beyond its AET, which starts when MPI_Init returns and ends when MPI_Finalize is called
launch_time() {
  local i t0 t1 prog=${2:-$build/bench/mpi_empty}
  [[ -x $prog ]] || { echo "launch_time: $prog missing: cmake --build $build" >&2; return 1; }
  for i in 1 2 3 4 5; do
    t0=$(date +%s.%N); "${mpirun[@]}" -np "$1" "$prog"; t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}'
  done | median
}
# rng FILE: "lo-hi" of the numbers in FILE
# median_ci FILE: "MEDIAN [LO, HI] C%" of the numbers in FILE: the distribution-free
# interval for the median between order statistics k and n+1-k, k the largest whose coverage
# 1 - 2 P(Bin(n, 1/2) < k) is >= 95 % (n = 7: the extremes, 98.4 %; n >= 9: inside them)
median_ci() {
  sort -g "$1" | awk '{a[NR]=$1} END { n = NR; if (!n) exit
    m = n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
    k = 1; cov = 1 - 2 * 0.5 ^ n
    for (j = 2; j <= n / 2; j++) { # P(B < j), B ~ Bin(n, 1/2)
      p = 0; c = 1; for (i = 0; i < j; i++) { if (i) c = c * (n - i + 1) / i; p += c }
      p *= 0.5 ^ n; if (1 - 2 * p >= 0.95) { k = j; cov = 1 - 2 * p } else break }
    printf "%+.1f [%+.1f, %+.1f] %.0f%%", m, a[k], a[n+1-k], cov * 100 }'
}
rng() { sort -g "$1" | awk 'NR==1{lo=$1} {hi=$1} END{printf "%.3f-%.3f", lo, hi}'; }
# bench_parse NAME HELP_LAST_LINE "$@": the options the accuracy benchmarks share (--build,
# --np, --runs, --apps, -h: the header comment up to HELP_LAST_LINE) into build np runs apps,
# whose defaults the script sets first; an option with one value that the script defines in
# a function bench_option OPT VALUE (status 0: taken; 2: a flag, VALUE not taken) is its own;
# then the build is checked
# and pas2p set.
bench_parse() {
  local name=$1 help=$2; shift 2
  while (($#)); do
    case $1 in
      --build) build=$2; shift ;;
      --np) np=$2; shift ;;
      --runs) runs=$2; shift ;;
      --apps) apps=$2; shift ;;
      -h | --help) sed -n "2,${help}p" "$0"; exit 0 ;;
      *)
        # bench_option OPT VALUE: 0 = took both, 2 = a flag (took OPT alone), 1 = unknown
        local took=1
        declare -F bench_option >/dev/null && { bench_option "$1" "${2-}" && took=0 || took=$?; }
        if ((took == 0 && $# > 1)); then
          shift
        elif ((took != 2)); then
          echo "$name: unknown option $1" >&2; exit 2
        fi ;;
    esac
    shift
  done
  need_build "$build"
  pas2p=$build/bin/pas2p
}
