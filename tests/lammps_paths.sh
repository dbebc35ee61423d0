#!/usr/bin/env bash
# LAMMPS (Debian's lmp, its LJ melt at 500 atoms, 200 steps, np 2) through every path: a
# real code the way a user runs it, through a launch script (validation/lammps/run.sh).
# trace; analyze, byte-identical with --mpi 2; simulate of the signature within 5 % of the
# full trace's (both replay the same trace; the target is 3 % on quiet traces); replay; predict
# (follows the signature, exit 0); replay --export (or its documented one-line refusal);
# report.  Each must exit 0 with its PET.
# usage: lammps_paths.sh PAS2P PLATFORM.xml WORKDIR RUN_SH -- MPIRUN...
set -uo pipefail
pas2p=$1 plat=$2 w=$3 run=$4
shift 5
. "$(dirname "$0")/paths.sh"
command -v lmp >/dev/null || { echo "no LAMMPS binary 'lmp' on PATH: install the Debian package 'lammps' (bash scripts/setup.sh)"; exit 1; }
rm -rf "$w"; mkdir -p "$w"
launch=(bash "$run" -np 2 -steps 200 -box 0.25 -- "$@")
timeout 300 "$pas2p" trace -o "$w/t" -- "${launch[@]}" >"$w/trace.out" 2>"$w/trace.err" || fail "trace exited $?"
grep -q "^atoms = 500$" "$w/trace.out" || fail "LAMMPS did not run 500 atoms"
"$pas2p" analyze "$w/t" -o "$w/sig.xml" >"$w/analyze.out" 2>"$w/analyze.err" || fail "analyze exited $?"
timeout 300 "$pas2p" analyze "$w/t" --mpi 2 -o "$w/sig2.xml" -- "$@" >"$w/analyze2.out" 2>"$w/analyze2.err" ||
  fail "analyze --mpi 2 exited $?"
cmp -s "$w/sig.xml" "$w/sig2.xml" || fail "analyze --mpi 2 wrote another signature"
timeout 300 "$pas2p" simulate "$w/sig.xml" --platform "$plat" --map round-robin -o "$w/sim" >"$w/simulate.out" 2>"$w/simulate.err" ||
  fail "simulate exited $?"
timeout 300 "$pas2p" simulate --full-trace "$w/t" --platform "$plat" --map round-robin -o "$w/full" >"$w/full.out" 2>"$w/full.err" ||
  fail "simulate --full-trace exited $?"
timeout 300 "$pas2p" replay "$w/sig.xml" -o "$w/rep" -- "$@" -np 2 >"$w/replay.out" 2>"$w/replay.err" || fail "replay exited $?"
timeout 300 "$pas2p" predict "$w/sig.xml" -o "$w/pred" -- "${launch[@]}" >"$w/predict.out" 2>"$w/predict.err" ||
  fail "predict exited $?"
for f in simulate full replay predict; do
  grep -q '^PET = [0-9.]* s$' "$w/$f.out" || fail "$f printed no PET"
done
s=$(awk '/^PET = /{print $3}' "$w/simulate.out") f=$(awk '/^PET = /{print $3}' "$w/full.out")
echo "simulate: signature $s s, full trace $f s"
# (5 %: the 3 % target is measured on quiet traces by validation/bench/sig_vs_full.sh, and
# this trace may be made beside other tests; a signature that misses phases is off by more)
awk -v s="$s" -v f="$f" 'BEGIN { e = (s - f) / f; exit !(e <= 0.05 && e >= -0.05) }' ||
  fail "the signature's simulation $s s is not within 5 % of the full trace's $f s"
# (an export refuses, in one line, a relevant phase with a call stock SimGrid cannot replay:
# LAMMPS numbers its atoms with one MPI_Scan in its set-up, relevant in a trace made on a
# busy machine; the directory is not left behind)
if ! "$pas2p" replay "$w/sig.xml" --export "$w/exp" >"$w/export.out" 2>"$w/export.err"; then
  grep -q "has no SimGrid time-independent action" "$w/export.err" && [[ $(grep -c '' "$w/export.err") == 1 ]] &&
    [[ ! -e $w/exp ]] || fail "replay --export failed otherwise"
  echo "export: $(cat "$w/export.err")"
fi
"$pas2p" report "$w/sig.xml" "$w/pred/prediction.xml" "$w/sim/prediction.xml" -o "$w/r.html" >"$w/report.out" 2>"$w/report.err" ||
  fail "report exited $?"
echo "lammps every path: ok"
