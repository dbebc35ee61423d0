#!/usr/bin/env bash
# Runs the LJ-melt benchmark (in.lj here) with the LAMMPS of the Debian package 'lammps'
# (/usr/bin/lmp, built against Open MPI).
#
#   bash validation/lammps/run.sh [-np NP] [-steps STEPS] [-box X] [-- LAUNCHER...]
#     NP       MPI ranks (default 2)
#     STEPS    time steps (default 100; the benchmark: 5000)
#     BOX      box scale, the same on x, y and z (default 1 = 32000 atoms; 0.25 = 500 atoms)
#     LAUNCHER the MPI launcher and its options (default: mpirun); -np NP is appended
#   e.g. pas2p trace -o /tmp/lmp -- bash validation/lammps/run.sh -np 2 -steps 100 -box 0.25
#
# LAMMPS writes no log file (-log none) and prints its thermo output on stdout; the script
# then prints "time = <s> s" (LAMMPS's loop time) and "atoms = <n>". Exit status: LAMMPS's, or
# 1 with a one-line reason when the binary is missing or LAMMPS printed no loop time.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
np=2 steps=100 box=1
launcher=()
while (($#)); do
  case $1 in
    -np) np=$2; shift 2 ;;
    -steps) steps=$2; shift 2 ;;
    -box) box=$2; shift 2 ;;
    --) shift; launcher=("$@"); break ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
((${#launcher[@]})) || launcher=(mpirun)
lmp=${LMP:-$(command -v lmp || command -v lmp_mpi || command -v lmp_openmpi || true)}
if [[ -z $lmp ]]; then
  echo "run.sh: no LAMMPS binary (lmp) on PATH: install the Debian package 'lammps' (bash scripts/setup.sh)" >&2
  exit 1
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
rc=0
"${launcher[@]}" -np "$np" "$lmp" -in "$here/in.lj" -log none -nocite \
  -var x "$box" -var y "$box" -var z "$box" -var steps "$steps" | tee "$out" || rc=$?
((rc == 0)) || exit "$rc"
t=$(awk '/^Loop time of/ {print $4}' "$out" | tail -1)
[[ -n $t ]] || { echo "run.sh: LAMMPS printed no loop time" >&2; exit 1; }
echo "atoms = $(awk '/^Loop time of/ {print $(NF-1)}' "$out" | tail -1)"
echo "time = $t s"
