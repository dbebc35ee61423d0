#!/usr/bin/env bash
# stream.sh PAS2P PLATFORM.xml WORKDIR -- LAUNCHER... STREAM N
# ABySS's message loop (tests/mpi/stream.c: one wildcard receive polled by MPI_Test at a
# time, and one left pending at the end) through simulate, of the signature and of the full
# trace, and replay.  In both the receive a test completed is waited for where the test
# found it done (the signature says it with the next call: `polled`).  Each must finish within its timeout and print PET; the full trace's
# successful tests are waits for the receive they completed (as a test the replay ran
# ahead and posted thousands of receives: SimGrid, which matches a message against every
# pending request, took quadratic time), and its last receive, never completed, is not
# replayed (it was waited for at the end: a deadlock); the two simulations agree.
set -u
pas2p=$1 plat=$2 w=$3; shift 4
launcher=("${@:1:$#-2}") prog=("${@:$#-1}")
fail() { echo "FAIL: $*"; for f in "$w"/*.out "$w"/*.err; do [[ -s $f ]] && { echo "--- $f"; tail -n 20 "$f"; }; done; exit 1; }
rm -rf "$w"; mkdir -p "$w"
timeout 120 "$pas2p" trace -o "$w/t" -- "${launcher[@]}" "${prog[@]}" >"$w/trace.out" 2>"$w/trace.err" ||
  fail "trace failed"
grep -q "stream: ok" "$w/trace.out" || fail "the program did not check out"
timeout 120 "$pas2p" analyze "$w/t" -o "$w/sig.xml" >"$w/analyze.out" 2>"$w/analyze.err" || fail "analyze exited $?"
timeout 120 "$pas2p" simulate --full-trace "$w/t" --platform "$plat" -o "$w/full" >"$w/full.out" 2>"$w/full.err" ||
  fail "simulate --full-trace exited $?"
grep -q "1 receives cancelled or never completed" "$w/full.err" ||
  fail "the receive never completed is not said to be left out"
n=${!#}
waits=$(grep -c '^wait 1$' "$w/full/actions/rank-00001.act")
tests=$(grep -c '^test$' "$w/full/actions/rank-00001.act")
((waits >= n && tests == 0)) || fail "rank 1's $n completed tests are $waits waits and $tests tests"
# the signature: its tests are polls (not numbered), but what they completed is said with
# the next call (polled="1"), and the replay waits for it there
grep -q 'polled="1"' "$w/sig.xml" || fail "the signature does not say what rank 1's tests completed"
timeout 120 "$pas2p" simulate "$w/sig.xml" --platform "$plat" -o "$w/sim" >"$w/simulate.out" 2>"$w/simulate.err" ||
  fail "simulate exited $?"
swaits=$(grep -c '^wait 1$' "$w/sim/actions/rank-00001.act") polled=$(grep -c 'polled="1"' "$w/sig.xml")
((2 * swaits >= polled)) || fail "rank 1's signature actions wait for $swaits of the $polled polled receives"
s=$(sed -n 's/^PET = \([0-9.]*\) s$/\1/p' "$w/simulate.out")
f=$(sed -n 's/^PET = \([0-9.]*\) s$/\1/p' "$w/full.out")
awk -v s="$s" -v f="$f" 'BEGIN { e = (s - f) / f; exit !(s > 0 && e < 0.1 && e > -0.1) }' ||
  fail "the signature simulates $s s, the full trace $f s"
timeout 120 "$pas2p" replay "$w/sig.xml" -o "$w/rep" -- "${launcher[@]}" >"$w/replay.out" 2>"$w/replay.err" ||
  fail "replay exited $?"
grep -q '^PET = ' "$w/replay.out" || fail "replay printed no PET"
echo "stream: full trace $f s ($waits waits), signature $s s, replay: ok"
