#!/usr/bin/env bash
# dynsched_mixed.sh PAS2P WORKDIR -- LAUNCHER... DYNSCHED Nm
# MUMPS's solves as they vary within one run (tests/mpi/dynsched.c, mode m): the master's
# successful MPI_Iprobe(MPI_ANY_SOURCE) calls and its sends interleave as the messages come.
# analyze's default (--locate auto) makes the phases both ways and keeps the anchors, whose
# phases repeat (located by ordinals no two solves are alike, and predict diverged at the
# first solve that differed from the traced run's); predict then follows the program: exit
# 0, no divergence.  --locate ordinals still chooses ordinals.
set -u
pas2p=$1 w=$2; shift 3
source "$(dirname "$0")/paths.sh"
traced_app dynsched "$@"
line=$(grep '^located = ' "$w/analyze.out")
[[ $line =~ ^located\ =\ anchors\ \(a\ rank\'s\ wildcard\ probes\ find\ messages.*\ ([0-9.]+)\ %\ of\ the\ run\ is\ in\ phases\ that\ repeat,\ ([0-9.]+)\ %\ by\ ordinals ]] ||
  fail "not located by anchors for its wildcard probes: $line"
awk -v a="${BASH_REMATCH[1]}" -v b="${BASH_REMATCH[2]}" 'BEGIN { exit !(a > b + 2) }' ||
  fail "anchored although its phases repeat no more: $line"
grep -q 'located="anchors"' "$w/sig.xml" || fail "the signature is not anchored"
timeout 120 "$pas2p" analyze "$w/t" --locate ordinals -o "$w/ord.xml" >"$w/ord.out" 2>&1 || fail "analyze --locate ordinals exited $?"
grep -q '^located = ordinals' "$w/ord.out" || fail "--locate ordinals did not locate by ordinals"
timeout 120 "$pas2p" predict "$w/sig.xml" -o "$w/pred" -- "$@" >"$w/predict.out" 2>"$w/predict.err" ||
  fail "predict exited $?"
grep -q diverged "$w/predict.out" "$w/predict.err" && fail "predict diverged"
grep -q '^PET = [0-9.]* s$' "$w/predict.out" || fail "predict printed no PET"
echo "dynsched_mixed: anchored for its wildcard probes, predicted: ok"
