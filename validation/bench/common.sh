# Shared by the benchmark scripts here (sourced): MPI as root, quiet tracer, a launcher
# for 2 cores, median of numbers on stdin, and "key = value" fields of pas2p's output.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PAS2P_QUIET=1
mpirun=(mpirun --oversubscribe --bind-to none --mca mpi_yield_when_idle 1)
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
field() { awk -v k="$1" '$0 ~ "^"k" = " {print $3}'; }
need_build() { # need_build BUILD_DIR: pas2p and the benchmark programs are built
  [[ -x $1/bin/pas2p && -x $1/bench/pingpong ]] || { echo "build first: cmake --build $1" >&2; exit 1; }
}
