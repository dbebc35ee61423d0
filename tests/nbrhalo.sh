#!/usr/bin/env bash
# nbrhalo.sh PAS2P PLATFORM.xml WORKDIR -- LAUNCHER... NBRHALO N
# Neighbourhood collectives (tests/mpi/nbrhalo.c: MPI_Neighbor_alltoallv and
# MPI_Ineighbor_allgather on a 2-D Cartesian communicator) through every path: traced as
# each rank's bytes to and from every rank of the communicator (an alltoallv's counts; 0 for
# a rank that is no neighbour, none for MPI_PROC_NULL), replayed and simulated as that
# alltoallv, the signature's simulation within 25 % of the full trace's (before: counted
# and timed only, their time computation to every path).
set -u
source "$(dirname "$0")/paths.sh"
pas2p=$1 plat=$2 w=$3; shift 4
traced_app nbrhalo "$@"
"$pas2p" dump "$w/t" --rank 0 >"$w/dump0.out" 2>&1 || fail "dump rank 0"
grep -Eq '^[0-9]+ MPI_Neighbor_alltoallv - - [0-9a-f]+ [1-9][0-9]* .* sendcounts=[0-9,]+ recvcounts=[0-9,]+$' "$w/dump0.out" ||
  fail "rank 0's MPI_Neighbor_alltoallv has no per-rank counts"
grep -Eq '^[0-9]+ MPI_Ineighbor_allgather ' "$w/dump0.out" || fail "no MPI_Ineighbor_allgather traced"
grep -q 'call="MPI_Neighbor_alltoallv"' "$w/sig.xml" || fail "no MPI_Neighbor_alltoallv in the signature"
every_path "$pas2p" "$plat" "$w" -- "$@"
sig=$(sed -n 's/^PET = \([0-9.]*\) s$/\1/p' "$w/simulate.out")
full=$(sed -n 's/^PET = \([0-9.]*\) s$/\1/p' "$w/full.out")
awk -v a="$sig" -v b="$full" 'BEGIN { exit !(a > 0.75 * b && a < 1.25 * b) }' ||
  fail "the signature simulates $sig s, the full trace $full s"
echo "nbrhalo: trace, analyze, simulate ($sig s; full trace $full s), replay, predict: ok"
