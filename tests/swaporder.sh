#!/usr/bin/env bash
# swaporder.sh PAS2P WORKDIR -- LAUNCHER... SWAPORDER N
# A relevant phase whose calls come in another order than the base run's (dolfinx's sparse
# exchange, as timing orders it; here SWAPORDER=1 swaps two sends, tests/mpi/swaporder.c):
# predict takes it as a departure, counted and said, and predicts (every dolfinx predict
# diverged).  A call the phase never makes still diverges (predict_diverge_stream), and so
# does another order at the phase's first call.
set -u
source "$(dirname "$0")/paths.sh"
pas2p=$1 w=$2; shift 3
traced_app swaporder "$@"
rm -rf "$w/p"
SWAPORDER=1 timeout 120 "$pas2p" predict "$w/sig.xml" -o "$w/p" -- "$@" >"$w/predict.out" 2>"$w/predict.err" ||
  fail "predict of the swapped run exited $?"
grep -q '^PET = [0-9.]* s$' "$w/predict.out" || fail "predict printed no PET"
grep -q '^departures = [1-9]' "$w/predict.out" || fail "the other order was not said"
grep -q "note: .*in another order" "$w/predict.out" || fail "no note on the departures"
echo "swaporder: a relevant phase's calls in another order predicted, the departures said: ok"
