#!/usr/bin/env bash
# waitlater.sh PAS2P PLATFORM.xml WORKDIR -- LAUNCHER... WAITLATER N
# A wait for a request that is not the oldest pending one (StarPU-MPI: a wildcard envelope
# receive stays posted while later requests are waited for; tests/mpi/waitlater.c) through
# every path: the signature says which call posted the request a Wait completes
# (`completes`), the actions which pending request (`wait 1 P`).  Before, simulate and
# simulate --full-trace reported SimGrid's deadlock and replay hung to its watchdog.
set -u
source "$(dirname "$0")/paths.sh"
pas2p=$1 plat=$2 w=$3; shift 4
traced_app waitlater "$@"
call=MPI_Wait; [[ ${*: -1} == *w ]] && call=MPI_Waitsome # (waitlater Nw: a Waitsome)
grep -q "call=\"$call\"[^>]* completes=\"1\"" "$w/sig.xml" || fail "no $call says which call posted its request"
every_path "$pas2p" "$plat" "$w" -- "$@"
grep -qx 'wait 1 1' "$w/sim/actions/rank-00000.act" || fail "the signature's actions never wait for a later request"
grep -qx 'wait 1 1' "$w/full/actions/rank-00000.act" || fail "the full trace's actions never wait for a later request"
# signature and full trace replay the same requests: their simulations agree
s=$(awk '/^PET = / {print $3}' "$w/simulate.out") f=$(awk '/^PET = / {print $3}' "$w/full.out")
awk -v s="$s" -v f="$f" 'BEGIN { d = (s - f) / f; exit !(d < 0.15 && d > -0.15) }' ||
  fail "signature simulation $s s vs full trace $f s"
rm -rf "$w/x"
"$pas2p" replay "$w/sig.xml" --export "$w/x" >"$w/export.out" 2>"$w/export.err" || fail "export exited $?"
# (an any-source receive: SimGrid 3.32's smpireplaymain holds it under source -556)
grep -q ' wait -556 0 42$' "$w/x/phase-"*/rank-00000.txt || fail "the export does not wait for the envelope by its own source and tag"
echo "waitlater: trace, analyze, simulate, full trace, replay, predict, export: ok"
