#!/usr/bin/env bash
# unreceived.sh PAS2P PLATFORM.xml WORKDIR -- LAUNCHER... UNRECEIVED ARGS
# A message sent and never received when the ranks end (Ray's to itself; tests/mpi/
# unreceived.c) through analyze, replay and simulate: the analysis succeeds with phases
# (the loop before it is cut as usual) and one line saying so; replay and simulate finish
# and print PET (a replayed send whose receive never comes would leave its phase unclosed:
# they refused it before).
set -u
pas2p=$1 plat=$2 w=$3; shift 4
launcher=("${@:1:$#-2}") prog=("${@:$#-1}")
fail() { echo "FAIL: $*"; for f in "$w"/*.out "$w"/*.err; do [[ -s $f ]] && { echo "--- $f"; tail -n 20 "$f"; }; done; exit 1; }
rm -rf "$w"; mkdir -p "$w"
timeout 120 "$pas2p" trace -o "$w/t" -- "${launcher[@]}" "${prog[@]}" >"$w/trace.out" 2>"$w/trace.err" ||
  fail "trace failed"
timeout 120 "$pas2p" analyze "$w/t" -o "$w/sig.xml" >"$w/analyze.out" 2>"$w/analyze.err" ||
  fail "analyze exited $?"
grep -q "1 message(s) sent and never received (the first from rank 0 to rank 0)" "$w/analyze.err" ||
  fail "analyze did not say the message never received"
[[ $(grep -c . "$w/analyze.err") -le 2 ]] || fail "analyze said more than expected"
occ=$(sed -n 's/^occurrences = \([0-9]*\).*/\1/p' "$w/analyze.out")
[[ ${occ:-0} -ge 10 ]] || fail "the loop before the message is not cut ($occ occurrences)"
timeout 120 "$pas2p" replay "$w/sig.xml" -o "$w/rep" -- "${launcher[@]}" >"$w/replay.out" 2>"$w/replay.err" ||
  fail "replay exited $?"
grep -q '^PET = ' "$w/replay.out" || fail "replay printed no PET"
timeout 120 "$pas2p" simulate "$w/sig.xml" --platform "$plat" -o "$w/sim" >"$w/simulate.out" 2>"$w/simulate.err" ||
  fail "simulate exited $?"
grep -q '^PET = ' "$w/simulate.out" || fail "simulate printed no PET"
echo "unreceived: analyze, replay, simulate: ok"
