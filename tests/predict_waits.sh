#!/usr/bin/env bash
# Waits that a program makes or not by timing (tests/mpi/testwait.c), predicted with the
# delay that changes them (TW_DELAY=1: rank 1 late): predict follows the signature.
#   after   Boost.MPI's wait_all: tests, then MPI_Waitall only for what they did not find
#           done (a wait right after the tests; it diverged at the first Waitall)
#   later   SuperLU_DIST's receives: a test, another call, then MPI_Wait only where the test
#           failed (the tracer's flag says so: completion_waits "flagged"; a trace without
#           the flag, its manifest edited, keeps the after-tests rule alone)
#   sends   SuperLU_DIST's factorisation: a panel sent, the look-ahead receive tested while
#           pending, the previous panel's send waited for, which no test looked at: a call
#           whatever the tests did (the after-tests rule folded it after a failed test: the
#           receive's arrival decided the rank's calls and predict diverged in every run)
# usage: predict_waits.sh after|later|sends PAS2P PROGRAM WORKDIR MPIRUN...
set -uo pipefail
mode=$1 pas2p=$2 prog=$3 W=$4
shift 4
case $mode in
  after) args=(60) want='completion_waits="(after-tests|tested|flagged)"' ;;
  later) args=(60 later) want='completion_waits="flagged"' ;;
  sends) args=(60 sends) want='completion_waits="flagged"' ;;
  *) echo "predict_waits.sh: unknown mode $mode" >&2; exit 2 ;;
esac
rm -rf "$W"; mkdir -p "$W"
"$pas2p" trace -o "$W/t" -- "$@" -np 2 "$prog" "${args[@]}" >"$W/trace.out" 2>&1 || exit 1
grep "^testwait" "$W/trace.out"
"$pas2p" analyze "$W/t" -o "$W/s.xml" >/dev/null || exit 1
grep -Eq "$want" "$W/s.xml" || { echo "no $want in the signature"; exit 1; }
"$pas2p" predict "$W/s.xml" -o "$W/p" -- "$@" -x TW_DELAY=1 -np 2 "$prog" "${args[@]}" >"$W/out" 2>&1
rc=$?; cat "$W/out"
((rc == 0)) && ! grep -q "diverged" "$W/out" && grep -q "^PET = " "$W/out" || exit 1
if [[ $mode == later ]]; then
  grep -v '^waits_tested' "$W/t/manifest" >"$W/m" && mv "$W/m" "$W/t/manifest"
  "$pas2p" analyze "$W/t" -o "$W/old.xml" >/dev/null || exit 1
  grep -q 'completion_waits="after-tests"' "$W/old.xml" || { echo "old trace: not after-tests"; exit 1; }
fi
exit 0
