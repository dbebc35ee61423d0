#!/usr/bin/env bash
# predict's pairing of the target's timed occurrences with the base's same ones
# (signature/pas2p_times.h, pas2p_times_pair), on the two programs that broke it:
#  slowstart  (tests/mpi/slowstart.c, SLOWSTART=8 on the target: its first 8 iterations run
#             20 ms instead of 0.3 ms, then the base's pace): the light phase's timed
#             occurrences change pace at its 7th occurrence (iteration 8: the 1st is in the
#             Init phase); predict waits (past its budget, up to twice it) for 3 at the new
#             pace and estimates from those, the ones before counted as they ran.  The old
#             estimator paired the slow start alone: the phase at 62x its base, PET 6.14 s
#             for a run of 0.82 s.  Asserted: the change found at occurrence 7 (8 or 9 when a
#             loaded machine blurred one), the estimate from after it, the phase's ratio a
#             third of the slow start's or less, PET within 2x of two runs timed beside it
#             (quiet: PET 0.79 s for runs of 0.82 s);
#  untypical  (tests/mpi/paired_amplify.c 200 3: its first 8 base occurrences 0.1 ms, then
#             3 ms): the values are paired with the occurrences whose base time is typical
#             of the phase (within 4x its median), awaited up to twice the budget; the old
#             estimator paired the 0.1 ms ones and multiplied their ratio's noise onto the
#             3 ms mean (XMDS2: PET 179 s for a run of 1.35 s).  Asserted: the typical pairs
#             used, PET within 2x of the base's AET.  (A light base occurrence that noise
#             made typical, 0.8 ms, pairs with the target's 0.25 ms: a change of pace
#             among the typical pairs, said too; CI's main suite saw it once)
# Exits 77 (skipped) when the trace noted a shared machine (a base traced beside other jobs
# had its 0.3 ms iterations at 6.6 ms on average and 0.3-20 ms one by one: no pace to
# compare with) or the analysis did not make the phase (weight 269-270, or 199).
# usage: predict_pairing.sh slowstart|untypical PAS2P PROGRAM WORKDIR MPIRUN...
set -uo pipefail
mode=$1 pas2p=$2 prog=$3 W=$4
shift 4
case $mode in
  slowstart) args=(300) weights="269 270" env=(SLOWSTART=8) ;;
  untypical) args=(200 3) weights="199" env=() ;;
  *) echo "predict_pairing.sh: unknown mode $mode" >&2; exit 2 ;;
esac
rm -rf "$W"; mkdir -p "$W"
"$pas2p" trace -o "$W/t" -- "$@" -np 2 "$prog" "${args[@]}" >"$W/trace.out" 2>&1 || exit 1
"$pas2p" analyze "$W/t" -o "$W/s.xml" >"$W/an.out" 2>&1 || exit 1
cat "$W/an.out"
id=$(awk -v w=" $weights " '/^# global phases/ { on = 1; next } /^#/ { on = 0 }
  on && index(w, " " $2 " ") && $6 == "yes" { print $1; exit }' "$W/an.out")
[[ $id ]] || { echo "SKIPPED: no relevant global phase of weight $weights: the trace did not make it (a loaded machine)"; exit 77; }
! grep "computed on" "$W/trace.out" || { echo "SKIPPED: the base was traced on a shared machine"; exit 77; }
env "${env[@]}" "$pas2p" predict "$W/s.xml" -o "$W/p" -- "$@" -np 2 "$prog" "${args[@]}" >"$W/out" 2>&1
rc=$?; cat "$W/out"
((rc == 0)) || exit 1
pet=$(awk '/^PET = /{print $3}' "$W/out")
within() { # within PET LO HI: PET in (LO / 2, 2 HI)
  awk -v p="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(p > 0.5 * lo && p < 2 * hi) }'
}
if [[ $mode == untypical ]]; then
  grep -Eq "^ +each value over the same occurrence of the base run \(occurrences 2-[0-9]+\): base mean x the median ratio [0-9.]+ of [0-9]+ of them, whose base occurrence was typical of the base run(, after the target changed pace)?$" "$W/out" ||
    { echo "phase $id: not paired with its typical base occurrences"; exit 1; }
  aet=$(awk '/^AET = /{print $3}' "$W/an.out")
  within "$pet" "$aet" "$aet" || { echo "PET $pet s for a base run of $aet s"; exit 1; }
  exit 0
fi
grep -Eq "^ +each value over .* of [0-9]+ of them(, whose base occurrence was typical of the base run)?, after the target changed pace$" "$W/out" ||
  { echo "phase $id: not estimated from after the change"; exit 1; }
note=$(grep -E "^note: phase $id: its timed occurrences ran [0-9.e+]+x the base's same ones, then [0-9.e+]+x from occurrence [789]:" "$W/out") ||
  { echo "phase $id: no change of pace at occurrence 7-9 noted"; exit 1; }
before=$(sed -E 's/.* ran ([0-9.e+]+)x the base.*/\1/' <<<"$note")
ratio=$(awk -v id="$id" -v w=" $weights " '$1 == id && index(w, " " $2 " ") { print $5; exit }' "$W/out")
awk -v b="$before" -v r="$ratio" 'BEGIN { exit !(r > 0 && 3 * r <= b) }' ||
  { echo "phase $id: ratio $ratio against the slow start's $before"; exit 1; }
# against the runs just before and after it
a1=$(env "${env[@]}" "$@" -np 2 "$prog" "${args[@]}" | awk '/^run /{print $2}')
a2=$(env "${env[@]}" "$@" -np 2 "$prog" "${args[@]}" | awk '/^run /{print $2}')
echo "PET $pet s; the runs: $a1 s, $a2 s"
lo=$(printf '%s\n' "$a1" "$a2" | sort -g | head -1) hi=$(printf '%s\n' "$a1" "$a2" | sort -g | tail -1)
within "$pet" "$lo" "$hi"
