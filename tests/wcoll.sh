#!/usr/bin/env bash
# wcoll.sh PAS2P PLATFORM.xml WORKDIR -- LAUNCHER... WCOLL N
# W-collectives (tests/mpi/wcoll.c: MPI_Alltoallw and MPI_Ialltoallw with a datatype per
# peer) through every path: replayed and simulated as an alltoallv of each peer's bytes
# (before, refused: "w-collectives have no action yet").
set -u
source "$(dirname "$0")/paths.sh"
pas2p=$1 plat=$2 w=$3; shift 4
traced_app wcoll "$@"
grep -q 'call="MPI_Alltoallw"' "$w/sig.xml" || fail "no MPI_Alltoallw in the signature"
every_path "$pas2p" "$plat" "$w" -- "$@"
echo "wcoll: trace, analyze, simulate, full trace, replay, predict: ok"
