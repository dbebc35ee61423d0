#!/usr/bin/env bash
# replay_watchdog.sh REPLAYER WORKDIR -- LAUNCHER...
# The real-MPI replayer's watchdog: actions that can never complete (each rank waits for a
# message the other sends only after its own wait: what a signature whose waits are
# replayed as "the N oldest pending" can come to, HPCC's RandomAccess at N 1000 on a 1x2
# grid) end within PAS2P_REPLAY_TIMEOUT with one line in OUT_DIR/replay.error naming the
# rank and phase, a non-zero exit, and no process left.
set -u
replayer=$1 w=$2; shift 3
fail() { echo "FAIL: $*"; [[ -f $w/out ]] && tail -n 20 "$w/out"; exit 1; }
rm -rf "$w"; mkdir -p "$w/act" "$w/res"
for r in 0 1; do
  { echo "pas2p-actions 1 rank $r np 2"
    echo "phase 7 1 once"
    echo "irecv $((1 - r)) 5 64 0"
    echo "wait 1"
    echo "send $((1 - r)) 5 64 0"
    echo "end"; } >"$w/act/rank-0000$r.act"
done
start=$(date +%s)
PAS2P_REPLAY_TIMEOUT=3 timeout 60 "$@" -x PAS2P_REPLAY_TIMEOUT "$replayer" "$w/act" "$w/res" 3 sleep >"$w/out" 2>&1
rc=$?
((rc != 0 && rc != 124)) || fail "the replayer exited $rc (124: the watchdog did not end it)"
(($(date +%s) - start < 30)) || fail "the watchdog took $(($(date +%s) - start)) s for 3"
grep -q "^the replay did not end within 3 s: rank [01] was still in phase 7" "$w/res/replay.error" ||
  fail "replay.error: $(cat "$w/res/replay.error" 2>/dev/null)"
sleep 1
pgrep -f "$replayer $w/act" >/dev/null && fail "a replayer process is left"
echo "watchdog: $(cat "$w/res/replay.error")"
