#!/usr/bin/env bash
# comm_redefined.sh PAS2P WORKDIR -- LAUNCHER... COMMLOOP
# A reused communicator id defined again with other members (damage.sh redefine on a
# trace of tests/mpi/commloop.c): analyze refuses it in one line naming the rank, the event
# and the communicator, exit non-zero (the readers take an id's first definition, so an
# inconsistent one would otherwise pass silently).
set -u
pas2p=$1 w=$2; shift 3
source "$(dirname "$0")/paths.sh"
traced_app commloop "$@" 10 # (the undamaged trace analysed: into w/sig.xml)
bash "$(dirname "$0")/damage.sh" redefine "$w/t" "$w/bad" || fail "damage.sh redefine failed"
timeout 120 "$pas2p" analyze "$w/bad" -o "$w/bad.xml" >"$w/analyze.out" 2>"$w/analyze.err" && fail "analyze exited 0"
grep -Eq "^pas2p analyze: rank [01]: event [0-9]+ \(MPI_Comm_dup\) defines communicator [0-9]+ with other members than rank [01]'s event [0-9]+ did" "$w/analyze.err" ||
  fail "analyze did not name the redefinition"
[[ $(grep -c . "$w/analyze.err") == 1 ]] || fail "analyze said more than one line"
echo "comm_redefined: refused in one line: ok"
