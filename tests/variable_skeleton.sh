#!/usr/bin/env bash
# variable_skeleton.sh PAS2P PLATFORM.xml HOSTFILE WORKDIR -- LAUNCHER... TASKFARM ARGS...
# A farm's rounds (the bundled taskfarm at np 3): the master answers whichever worker is
# done first, so each round makes its calls in another order and number, one variable
# phase (anchored).  Its skeleton is its first occurrences in a row, up to 16
# (`skeleton_occurrences`, each later one's first call `occurrence_start`), not the first
# alone: one round replayed for every round did not average them (Graph500's BFS on two
# hosts: +11 to +14 % against the full trace; taskfarm at np 8: +3.3 %).  Every path takes
# it: simulate (against the full trace), replay with real MPI (the block `once`, `occ K`),
# predict, and the export, whose stock replay times the block as simulate does, per
# occurrence (before each occurrence after the first the block completes what is pending:
# without it the export ran Graph500's block at a third of simulate's time).
set -u
pas2p=$1 plat=$2 hosts=$3 w=$4; shift 5
source "$(dirname "$0")/paths.sh"
rm -rf "$w"; mkdir -p "$w"
launcher=("${@:1:$#-3}")
timeout 120 "$pas2p" trace -o "$w/t" -- "$@" >"$w/trace.out" 2>"$w/trace.err" || fail "trace failed"
"$pas2p" analyze "$w/t" -o "$w/sig.xml" >"$w/analyze.out" 2>"$w/analyze.err" || fail "analyze exited $?"
grep -q '^located = anchors' "$w/analyze.out" || fail "the farm's signature is not anchored"
k=$(grep -o 'variable="yes"[^>]* skeleton_occurrences="[0-9]*"' "$w/sig.xml" | grep -o '[0-9]*"$' | tr -d '"' | sort -n | tail -1)
[[ -n $k ]] && ((k > 1 && k <= 16)) || fail "the variable phase's skeleton holds one occurrence (skeleton_occurrences '$k')"
grep -q 'occurrence_start="1"' "$w/sig.xml" || fail "no call starts the skeleton's later occurrences"
timeout 120 "$pas2p" simulate "$w/sig.xml" --platform "$plat" -o "$w/sim" >"$w/simulate.out" 2>"$w/simulate.err" ||
  fail "simulate exited $?"
timeout 120 "$pas2p" simulate --full-trace "$w/t" --platform "$plat" -o "$w/full" >"$w/full.out" 2>"$w/full.err" ||
  fail "simulate --full-trace exited $?"
s=$(awk '/^PET = / {print $3}' "$w/simulate.out") f=$(awk '/^PET = / {print $3}' "$w/full.out")
awk -v s="$s" -v f="$f" 'BEGIN { d = (s - f) / f; exit !(d < 0.05 && d > -0.05) }' ||
  fail "signature simulation $s s vs full trace $f s"
grep -q "^phase [0-9]* [0-9]* once occ $k" "$w/sim/actions/rank-00000.act" ||
  fail "the actions do not replay the block of $k occurrences once"
timeout 120 "$pas2p" replay "$w/sig.xml" -o "$w/rep" -- "${launcher[@]}" >"$w/replay.out" 2>"$w/replay.err" ||
  fail "replay exited $?"
timeout 120 "$pas2p" predict "$w/sig.xml" -o "$w/pred" -- "$@" >"$w/predict.out" 2>"$w/predict.err" ||
  fail "predict exited $?"
for x in replay predict; do grep -q '^PET = [0-9.]* s$' "$w/$x.out" || fail "$x printed no PET"; done
bash "$(dirname "$0")/replay_export.sh" "$pas2p" "$w/sig.xml" "$plat" "$hosts" "$w" 0.05 >"$w/export.out" 2>&1 ||
  fail "the stock replay of the export: $(tail -n 3 "$w/export.out")"
cat "$w/export.out"
echo "variable_skeleton: $k occurrences; simulate $s s, full trace $f s; replay, predict, export: ok"
