#!/usr/bin/env bash
# fptraps.sh PAS2P WORKDIR -- LAUNCHER... FPTRAPS ARGS
# An application with floating-point traps enabled before MPI_Init (MPQC's way;
# tests/mpi/fptraps.c): traced, it still finds its traps as it set them; predicted, the
# signature runtime (XML reading at MPI_Init, its arithmetic at every call) must not trap
# (MPQC: SIGFPE in libxml2 in every predict run) and the prediction is made.
set -u
pas2p=$1 w=$2; shift 3
fail() { echo "FAIL: $*"; for f in "$w"/*.out "$w"/*.err; do [[ -s $f ]] && { echo "--- $f"; tail -n 20 "$f"; }; done; exit 1; }
rm -rf "$w"; mkdir -p "$w"
timeout 120 "$pas2p" trace -o "$w/t" -- "$@" >"$w/trace.out" 2>"$w/trace.err" || fail "trace failed"
grep -q '^fptraps: ok$' "$w/trace.out" || fail "traced, the application's floating-point traps changed"
timeout 120 "$pas2p" analyze "$w/t" -o "$w/sig.xml" >"$w/analyze.out" 2>"$w/analyze.err" || fail "analyze failed"
for k in 1 2; do
  rm -rf "$w/p"
  timeout 120 "$pas2p" predict "$w/sig.xml" -o "$w/p" -- "$@" >"$w/predict.out" 2>"$w/predict.err" ||
    fail "predict $k exited $?"
  grep -q '^PET = ' "$w/predict.out" || fail "predict $k printed no PET"
  grep -qi 'floating point' "$w/predict.out" "$w/predict.err" && fail "predict $k: a floating-point exception"
done
echo "fptraps: trace, analyze, 2 predictions with the application's traps on: ok"
