#!/usr/bin/env bash
# script_predict.sh PAS2P WORKDIR INTERPRETER -- LAUNCHER...
# An MPI program launched as a "#!" script (gpaw, any Python, Perl or shell MPI program):
# the process's command line is the interpreter's, then the script's path and arguments.
# predict must take the same launch as the signature's (it refused every gpaw run), and
# still refuse the script with other arguments, quoting the script, not the interpreter.
# And a wrapper script that execs the program with its arguments (tree-puzzle's
# `exec tree-ppuzzle ef16.phy < y.txt`): checked against the traced rank 0's own command
# line (the manifest's program), not the launch command's tail.
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
printf '#!/bin/sh\nexec %s spin 40\n' "$interp" >wrap.sh; chmod +x wrap.sh
rm -rf t2 p2
timeout 120 "$pas2p" trace -o t2 -- "$@" ./wrap.sh >trace2.out 2>trace2.err || fail "trace of the wrapper failed"
grep -q "^program = .* spin 40$" t2/manifest || fail "the manifest does not say the program the wrapper ran"
timeout 120 "$pas2p" analyze t2 -o sig2.xml >analyze2.out 2>analyze2.err || fail "analyze of the wrapper's trace failed"
timeout 120 "$pas2p" predict sig2.xml -o p2 -- "$@" ./wrap.sh >predict2.out 2>predict2.err ||
  fail "predict of the wrapper's launch exited $?"
grep -q '^PET = ' predict2.out || fail "predict of the wrapper printed no PET"
echo "script_predict: a #! program and a wrapper predicted, and refused with other arguments: ok"
