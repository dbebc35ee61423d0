#!/usr/bin/env bash
# script_predict.sh PAS2P WORKDIR INTERPRETER -- LAUNCHER...
# An MPI program launched as a "#!" script (gpaw, any Python, Perl or shell MPI program):
# the process's command line is the interpreter's, then the script's path and arguments.
# predict must take the same launch as the signature's (it refused every gpaw run), and
# still refuse the script with other arguments, quoting the script, not the interpreter.
set -u
pas2p=$1 w=$2 interp=$3; shift 4
fail() { echo "FAIL: $*"; for f in "$w"/*.out "$w"/*.err; do [[ -s $f ]] && { echo "--- $f"; tail -n 20 "$f"; }; done; exit 1; }
rm -rf "$w"; mkdir -p "$w"
printf '#!%s\n' "$interp" >"$w/prog"; chmod +x "$w/prog"
cd "$w" || exit 1
timeout 120 "$pas2p" trace -o t -- "$@" ./prog 60 >trace.out 2>trace.err || fail "trace failed"
timeout 120 "$pas2p" analyze t -o sig.xml >analyze.out 2>analyze.err || fail "analyze failed"
timeout 120 "$pas2p" predict sig.xml -o p -- "$@" ./prog 60 >predict.out 2>predict.err ||
  fail "predict of the same launch exited $?"
grep -q '^PET = ' predict.out || fail "predict printed no PET"
timeout 120 "$pas2p" predict sig.xml -o q -- "$@" ./prog 50 >other.out 2>other.err &&
  fail "predict with other arguments exited 0"
grep -q "this run's program and arguments './prog 50' are not the signature's ('./prog 60')" other.err ||
  fail "the refusal does not quote the script and its arguments"
echo "script_predict: a #! program predicted, and refused with other arguments: ok"
