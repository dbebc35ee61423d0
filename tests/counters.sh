#!/usr/bin/env bash
# counters.sh PAS2P DIR MPIRUN... -- APP ARGS: traces APP with the software counter
# perf::TASK-CLOCK (this VM has no hardware counters; PAPI's perf_event software events
# take the same path).  Exits 77 (skipped) where PAPI does not know or cannot count it.
set -u
pas2p=$1 dir=$2; shift 2
rm -rf "$dir"
out=$("$pas2p" trace --counters perf::TASK-CLOCK -o "$dir" -- "$@" 2>&1); rc=$?
echo "$out"
if grep -q "unknown counter" <<<"$out"; then echo "skipped: PAPI has no perf::TASK-CLOCK"; exit 77; fi
if (( rc == 0 )) && grep -q "^counters = none" "$dir/manifest"; then
  echo "skipped: perf::TASK-CLOCK cannot be counted here ($(grep counters_note "$dir/manifest"))"
  exit 77
fi
exit "$rc"
