#!/usr/bin/env bash
# pollreply.sh PAS2P PLATFORM.xml WORKDIR -- LAUNCHER... POLLREPLY N
# A receive polled with MPI_Test while an older send is pending (Graph500's BFS;
# tests/mpi/pollreply.c), every path.  The full trace's test that completed the receive is
# a `wait 1 P` (that receive, not the oldest pending request).  Before, it was a `test`:
# rank 0 ran on without the answer (on PLATFORM, a 1 ms link: 0.099 s for 40 iterations,
# SimGrid's rendezvous still charging each receive a latency; waiting for the answer,
# 0.186 s).  Each round trip costs at least its two latencies.
set -u
source "$(dirname "$0")/paths.sh"
pas2p=$1 plat=$2 w=$3; shift 4
n=${*: -1}
traced_app pollreply "$@"
every_path "$pas2p" "$plat" "$w" -- "$@"
grep -qx 'wait 1 [0-9]*' "$w/full/actions/rank-00000.act" ||
  fail "the full trace's actions do not wait for the polled answer"
for f in full; do # (the signature waits for most, not all: REAL-APPS.md, Graph500)
  t=$(awk '/^PET = / {print $3}' "$w/$f.out")
  awk -v t="$t" -v n="$n" 'BEGIN { exit !(t >= n * 2e-3) }' ||
    fail "$f: PET $t s for $n round trips over a 1 ms link (at least $(awk -v n="$n" 'BEGIN{print n * 2e-3}') s)"
done
echo "pollreply: trace, analyze, simulate, full trace, replay, predict: ok"
