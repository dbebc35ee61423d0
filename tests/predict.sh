#!/usr/bin/env bash
# predict.sh PAS2P SIG OUTDIR PROGRAM -- LAUNCH...
# `pas2p predict` on a real job: exits 0 with PET and SET, stopped early, and leaves no
# rank process behind (the pids the ranks wrote in their times files); its prediction.xml
# reads back through `pas2p show` with the same PET and SET, with measured phases (a minor
# variant or a phase at MPI_Finalize may be estimated, and says so).
set -u
pas2p=$1 sig=$2 out=$3 prog=$4
shift 5
rm -rf "$out"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$pas2p" predict "$sig" -o "$out" -- "$@" >"$log" 2>&1
rc=$?
cat "$log"
[[ $rc == 0 ]] || { echo "predict.sh: exit $rc"; exit 1; }
grep -Eq "^stop = early" "$log" || { echo "predict.sh: no early stop"; exit 1; }
grep -Eq "^PET = [0-9.]+ s" "$log" || { echo "predict.sh: no PET"; exit 1; }
grep -Eq "^SET = [0-9.]+ s" "$log" || { echo "predict.sh: no SET"; exit 1; }
sleep 0.5
for pid in $(awk '/^pid /{print $2}' "$out"/rank-*.times); do
  if [[ -e /proc/$pid ]] && grep -q -- "$(basename "$prog")" "/proc/$pid/cmdline" 2>/dev/null; then
    echo "predict.sh: rank process $pid ($prog) left behind"; exit 1
  fi
  # nor as a zombie (its cmdline is empty then): the job ended by MPI_Abort leaves its ranks
  # to whoever adopts them, and a container's PID 1 often reaps nothing; pas2p reaps them
  if [[ $(awk '{ sub(/.*\) /, ""); print $1 }' "/proc/$pid/stat" 2>/dev/null) == Z ]] &&
    grep -q -- "($(basename "$prog" | cut -c1-15))" "/proc/$pid/stat" 2>/dev/null; then
    echo "predict.sh: rank process $pid ($prog) left as a zombie"; exit 1
  fi
done
n=$(ls "$out"/rank-*.times | wc -l)
grep -l "^status stopped" "$out"/rank-*.times | wc -l | grep -qx "$n" || { echo "predict.sh: not every rank stopped"; exit 1; }
# the result file: `pas2p show` prints the same PET and SET; phases were measured
show=$("$pas2p" show "$out/prediction.xml") || { echo "predict.sh: pas2p show $out/prediction.xml failed"; exit 1; }
for k in PET SET; do
  a=$(grep "^$k = " "$log") b=$(grep "^$k = " <<<"$show")
  [[ -n $a && $a == "$b" ]] || { echo "predict.sh: show says '$b', predict said '$a'"; exit 1; }
done
# a measured phase's line: ..., W x target_s, the values it rests on (>= 1), their range
grep -Eq "^ +[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[1-9][0-9]* +[-+][0-9]+/[-+][0-9]+%$" <<<"$show" ||
  { echo "predict.sh: no relevant phase was measured"; exit 1; }
echo "predict.sh: ok ($n ranks stopped early; prediction.xml reads back)"
