#!/usr/bin/env bash
# pollreply.sh PAS2P PLATFORM.xml WORKDIR -- LAUNCHER... POLLREPLY N[any]
# (PLATFORM's directory holds hosts-ab.txt, its two hosts)
# A receive polled with MPI_Test while an older send is pending (Graph500's BFS;
# tests/mpi/pollreply.c), every path.  The full trace's test that completed the receive is
# a `wait 1 P` (that receive, not the oldest pending request), and the signature says the
# same (`polled_completes`); their simulations agree.  Before, it was a `test`:
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
t=$(awk '/^PET = / {print $3}' "$w/full.out")
awk -v t="$t" -v n="$n" 'BEGIN { exit !(t >= n * 2e-3) }' ||
  fail "full: PET $t s for $n round trips over a 1 ms link (at least $(awk -v n="$n" 'BEGIN{print n * 2e-3}') s)"
# the signature names the polled answer too (`polled_completes`: rank 0's send, still
# pending in a replay, is older) and its simulation waits for it as the full trace's does
# (before: 0.093 s against 0.186 s)
grep -q 'polled_completes="[0-9]*"' "$w/sig.xml" || fail "the signature does not name the polled answer"
s=$(awk '/^PET = / {print $3}' "$w/simulate.out")
awk -v s="$s" -v f="$t" 'BEGIN { d = (s - f) / f; exit !(d < 0.15 && d > -0.15) }' ||
  fail "signature simulation $s s vs full trace $t s"

# the signature exported to stock SimGrid traces: smpireplaymain times each phase as
# simulate does.  It holds an any-source receive under source -556, so a `wait -555 ...`
# waited for none (`pollreply Nany`; Graph500's export: 0.27x simulate's time)
bash "$(dirname "$0")/replay_export.sh" "$pas2p" "$w/sig.xml" "$plat" "$(dirname "$plat")/hosts-ab.txt" \
  "$w" 0.05 >"$w/export.out" 2>&1 || fail "the stock replay of the export: $(tail -n 3 "$w/export.out")"
cat "$w/export.out"

echo "pollreply: trace, analyze, simulate, full trace, replay, predict, export: ok"
