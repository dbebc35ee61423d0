#!/usr/bin/env bash
# replay_kinds.sh MPIRUN_PREFIX... -- REPLAYER SIMREPLAYER PLATFORM ACTIONS_DIR WORK_DIR
# Every action kind (tests/data/replay-actions: point-to-point in all forms, wildcards,
# MPI_PROC_NULL, probe, test, every collective blocking and not, on the world, on a
# two-rank communicator and on the world reversed) replayed for real on 4 ranks with both
# compute modes, and in SimGrid: each rank must finish and time both phases; phase 1 REPS
# times less the warm-up (with real MPI up to twice that and one more when its repetitions
# disagree: replayer.c), phase 2 (`once`) a single time.
set -u
launch=()
while [[ $1 != -- ]]; do launch+=("$1"); shift; done
shift
replayer=$1 simreplay=$2 platform=$3 actions=$4 work=$5
fail() { echo "replay_kinds: $*"; exit 1; }
check() { # DIR MIN MAX: 4 times files, completed, phase 1 timed MIN to MAX times, phase 2 once
  for r in 0 1 2 3; do
    f=$1/rank-0000$r.times
    [[ -f $f ]] || fail "$f missing"
    grep -q '^status completed' "$f" || fail "$f: not completed"
    grep -Eq "^phase 1( [0-9.]+){$2,$3}\$" "$f" || fail "$f: phase 1 not timed $2 to $3 times"
    grep -Eq '^phase 2 [0-9.]+$' "$f" || fail "$f: phase 2 (once) not timed exactly once"
  done
}
for mode in kernel sleep; do
  rm -rf "$work/kinds-$mode"; mkdir -p "$work/kinds-$mode"
  timeout 100 "${launch[@]}" -np 4 "$replayer" "$actions" "$work/kinds-$mode" 3 "$mode" ||
    fail "the $mode replay failed"
  check "$work/kinds-$mode" 2 5 # (2, and up to 5 when they disagree: replayed until steady)
  echo "ok: real MPI, compute $mode"
done
rm -rf "$work/kinds-sim"; mkdir -p "$work/kinds-sim"
printf 'gbe-0\ngbe-1\ngbe-2\ngbe-3\n' > "$work/kinds-sim/hostfile"
timeout 100 smpirun -np 4 -platform "$platform" -hostfile "$work/kinds-sim/hostfile" \
  --cfg=smpi/simulate-computation:no --log=root.thres:critical \
  "$simreplay" "$actions" "$work/kinds-sim" 2 1e9 || fail "the SimGrid replay failed"
check "$work/kinds-sim" 1 1
echo "ok: SimGrid"
