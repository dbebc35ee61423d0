#!/usr/bin/env bash
# `pas2p trace --runs N`: N traced runs, the one whose AET is the median stays as DIR, every
# run's AET is in the manifest (aet_runs, kept_run), the other runs stay in DIR/run-K; a run
# that fails stops the rest with an error naming it.  Runs of known lengths: the launch is
# this script itself, which counts its calls and sleeps 120, 10, then 40 iterations of 5 ms
# (tests/mpi/share.c), so the median is the third run whatever the machine's noise (not
# the first, the last, the shortest or the longest).
# usage: trace_runs.sh PAS2P SHARE_PROGRAM WORKDIR MPIRUN...
set -euo pipefail
if [[ ${1:-} == --launch ]]; then # the launcher: --launch COUNTER PROGRAM FAIL_AT MPIRUN...
  counter=$2 prog=$3 fail_at=$4; shift 4
  n=$(($(cat "$counter" 2>/dev/null || echo 0) + 1)); echo "$n" >"$counter"
  ((n == fail_at)) && exec true # not an MPI program: no trace
  iters=(120 10 40)
  # TRACE_RUNS_PLAN="ITERS:MS ...": run n makes ITERS iterations of MS ms
  [[ -n ${TRACE_RUNS_PLAN:-} ]] && { read -ra plan <<<"$TRACE_RUNS_PLAN"
    exec "$@" -np 2 "$prog" sleep "${plan[$(((n - 1) % ${#plan[@]}))]%:*}" "${plan[$(((n - 1) % ${#plan[@]}))]#*:}"; }
  exec "$@" -np 2 "$prog" sleep "${iters[$(((n - 1) % 3))]}"
fi
pas2p=$1 prog=$2 work=$3
shift 3
fail() { echo "FAIL: $*" >&2; exit 1; }
field() { awk -F' = ' -v k="$1" '$1 == k { print $2 }' "$2/manifest"; }
d=$work/trace-runs
rm -rf "$d" "$d.count"
out=$("$pas2p" trace --runs 3 -o "$d" -- bash "$0" --launch "$d.count" "$prog" 0 "$@" 2>&1) ||
  fail "pas2p trace --runs 3 failed: $out"
echo "$out"
runs=$(field aet_runs "$d") kept=$(field kept_run "$d") aet=$(field aet_s "$d")
[[ $kept == 3 ]] || fail "kept_run is '$kept', not 3 (the median of 120, 10, 40 iterations)"
[[ $runs =~ ^[0-9.]+,[0-9.]+,[0-9.]+$ ]] || fail "aet_runs '$runs' is not three times"
awk -v r="$runs" -v a="$aet" 'BEGIN { split(r, t, ",");
  if (sprintf("%.6f", t[3]) != sprintf("%.6f", a)) exit 1
  if (!(t[2] < t[3] && t[3] < t[1])) exit 1 }' || fail "aet_s $aet is not run 3's of $runs, or the runs are out of order"
grep -q "kept run 3 of 3 (AET" <<<"$out" || fail "the kept run is not said"
grep -Eq "^AET = " <<<"$out" || fail "no AET line"
[[ $(cd "$d" && find . -mindepth 1 -type d | sort | xargs) == "./run-1 ./run-2" ]] ||
  fail "the other runs are not kept as run-1 and run-2 in $d: $(ls "$d")"
[[ -f $d/run-1/manifest && -f $d/run-2/manifest ]] || fail "run-1 or run-2 has no manifest"
[[ $(find "$d" -maxdepth 1 -name 'rank-*.p2t' | wc -l) == 2 ]] || fail "not two rank files in $d"
"$pas2p" dump "$d" >/dev/null || fail "pas2p dump refuses the kept trace"
echo "median run kept: $runs -> run $kept"

# an even number of runs keeps the lower of the two middle ones: 120 then 10 iterations
rm -rf "$d" "$d.count"
"$pas2p" trace --runs 2 -o "$d" -- bash "$0" --launch "$d.count" "$prog" 0 "$@" >/dev/null 2>&1 ||
  fail "pas2p trace --runs 2 failed"
[[ $(field kept_run "$d") == 2 ]] || fail "--runs 2 kept run $(field kept_run "$d"), not 2 (the shorter)"

# the second run is no MPI program: an error naming it, non-zero, the first run kept aside
rm -rf "$d" "$d.count"
if out=$("$pas2p" trace --runs 3 -o "$d" -- bash "$0" --launch "$d.count" "$prog" 2 "$@" 2>&1); then
  fail "a failed second run gave exit 0: $out"
fi
grep -q "no trace in $d/run-2 (run 2 of 3)" <<<"$out" || fail "the error does not name run 2: $out"
[[ $(cat "$d.count") == 2 ]] || fail "runs went on after the failed one"
[[ -f $d/run-1/manifest ]] || fail "the first run's trace is gone"
echo "failed run named: $(grep 'run 2 of 3' <<<"$out")"
rm -rf "$d" "$d.count"

# a run that took another path through the program (other event counts) is not kept, even
# when its AET is the median: 40 iterations of 5 ms, 10 of 50 ms, 40 of 20 ms (0.2, 0.5,
# 0.8 s): the median of the two alike runs is the first
out=$(TRACE_RUNS_PLAN="40:5 10:50 40:20" "$pas2p" trace --runs 3 -o "$d" -- bash "$0" --launch "$d.count" "$prog" 0 "$@" 2>&1) ||
  fail "pas2p trace --runs 3 (a run of other event counts) failed: $out"
[[ $(field kept_run "$d") == 1 ]] || fail "kept run $(field kept_run "$d"), not 1 (run 2 made other event counts): $out"
grep -q "kept run 1 of 3 (AET .*the median of the 2 runs whose ranks made the same numbers of events; the other 1 made other" <<<"$out" ||
  fail "the other path is not said: $out"
echo "other path left out: $(grep 'kept run' <<<"$out")"
rm -rf "$d" "$d.count"
echo "trace --runs OK"
