#!/usr/bin/env bash
# counttag.sh PAS2P PLATFORM.xml WORKDIR -- LAUNCHER... COUNTTAG N
# Counting tags (tests/mpi/counttag.c: a reduction made as mpi4py makes comm.allreduce of a
# Python object, its messages tagged with a per-call counter): the analyzer identifies
# them by PAS2P_TAG_COUNTING (tag -4 in the signature), so the steps repeat -- one phase of
# most of the steps, not one phase for the whole run -- and every path runs, predict
# without a divergence and stopping early.
set -u
source "$(dirname "$0")/paths.sh"
pas2p=$1 plat=$2 w=$3; shift 4
n=${*: -1}
traced_app counttag "$@"
grep -q 'tag="-4"' "$w/sig.xml" || fail "no counting tag (-4) in the signature"
wmax=$(grep -o '<phase id="[0-9]*" weight="[0-9]*"' "$w/sig.xml" | grep -o 'weight="[0-9]*"' |
  tr -dc '0-9\n' | sort -n | tail -1)
((wmax >= n / 2)) || fail "the heaviest phase has weight $wmax, not at least $((n / 2)) of the $n steps"
every_path "$pas2p" "$plat" "$w" -- "$@"
grep -q '^diverged' "$w/predict.out" && fail "predict diverged"
grep -q '^stop = .*early\|^stop = stopped' "$w/predict.out" || fail "predict did not stop early"
echo "counttag: trace, analyze (heaviest phase weight $wmax of $n), simulate, full trace, replay, predict: ok"
