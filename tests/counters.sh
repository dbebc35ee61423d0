#!/usr/bin/env bash
# counters.sh PAS2P DIR MPIRUN... -- APP ARGS: traces APP with the software counter
# perf::TASK-CLOCK (this VM has no hardware counters; PAPI's perf_event software events
# take the same path).  Exits 77 (skipped) where PAPI does not know or cannot count it,
# and then leaves DIR.skipped, which `counters.sh --check DIR CHECK...` reads: the check
# of a trace that was never made is skipped too (CTest runs a fixture's tests after a
# skipped set-up).
set -u
if [[ ${1:-} == --check ]]; then
  dir=$2; shift 2
  [[ -e $dir.skipped ]] && { echo "skipped: $(cat "$dir.skipped")"; exit 77; }
  exec "$@"
fi
pas2p=$1 dir=$2; shift 2
rm -rf "$dir" "$dir.skipped"
skip() { echo "skipped: $1"; echo "$1" >"$dir.skipped"; exit 77; }
out=$("$pas2p" trace --counters perf::TASK-CLOCK -o "$dir" -- "$@" 2>&1); rc=$?
echo "$out"
if grep -q "unknown counter" <<<"$out"; then skip "PAPI has no perf::TASK-CLOCK"; fi
if (( rc == 0 )) && grep -q "^counters = none" "$dir/manifest"; then
  skip "perf::TASK-CLOCK cannot be counted here ($(grep counters_note "$dir/manifest"))"
fi
exit "$rc"
