#!/usr/bin/env bash
# bcastorder.sh PAS2P PLATFORM.xml WORKDIR -- LAUNCHER... BCASTORDER N
# Rooted broadcasts on two all-rank communicators in a different order on each rank
# (murasaki-mpi; tests/mpi/bcastorder.c) through every path.  predict hung: its stop
# agreement, made after every all-rank collective, held the root in an allreduce while the
# other rank waited in the broadcast the root makes next.  Now agreed only after
# collectives no rank leaves before all entered them.
set -u
source "$(dirname "$0")/paths.sh"
pas2p=$1 plat=$2 w=$3; shift 4
traced_app bcastorder "$@"
every_path "$pas2p" "$plat" "$w" -- "$@"
grep -q '^stop = early' "$w/predict.out" || fail "predict did not stop early"
echo "bcastorder: trace, analyze, simulate, full trace, replay, predict: ok"
