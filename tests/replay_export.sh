#!/usr/bin/env bash
# replay_export.sh PAS2P SIGNATURE PLATFORM HOSTFILE WORK_DIR [TOLERANCE]
# `pas2p replay --export` writes stock SimGrid time-independent traces; their replay by
# SimGrid's own smpireplaymain (run.sh) must time every phase as `pas2p simulate` of the
# same signature on the same platform and hosts (same base speed) does, within TOLERANCE
# (a fraction; none: the stock replay must only accept and time every phase): the phase's
# duration, its slowest rank's time.  The two differ in one thing: pas2p starts a phase
# after a barrier, whose exit is skewed across ranks by its latency; the stock replay starts
# every rank at 0.  For phases of a few hundred microseconds on a GbE platform that skew
# alone moves the time by up to ~20 %.  (The PETs differ for a per-rank signature:
# the stock replay reports one time per phase, pas2p each rank's own.)
set -u
pas2p=$1 sig=$2 plat=$3 hosts=$4 work=$5 tol=${6:-}
fail() { echo "replay_export: $*"; exit 1; }
rm -rf "$work/export" "$work/export-sim"
"$pas2p" replay "$sig" --export "$work/export" --base-speed 1Gf || fail "export failed"
for f in README run.sh weights.csv np; do [[ -e $work/export/$f ]] || fail "$f missing"; done
"$work/export/run.sh" "$plat" "$hosts" | grep -E '^PET = [0-9.]+ s' || fail "run.sh printed no PET"
"$pas2p" simulate "$sig" --platform "$plat" --hostfile "$hosts" --base-speed 1Gf \
  -o "$work/export-sim" > /dev/null || fail "pas2p simulate failed"
# a block of K occurrences in a row (`occ K`: a variable phase's first ones): its stock time
# is K occurrences'
occ=$(awk '$1 == "phase" { k = 1; for (i = 3; i < NF; i++) if ($i == "occ") k = $(i + 1); print $2 "," k }' \
      "$work/export/actions/rank-00000.act" | sort -u)
n=0
while IFS=, read -r id stock; do
  k=$(awk -F, -v id="$id" '$1 == id { print $2; exit }' <<<"$occ")
  stock=$(awk -v s="$stock" -v k="${k:-1}" 'BEGIN { print s / k }')
  ours=$(awk -v id="$id" '$1 == "phase" && $2 == id && $3 > m { m = $3 } END { print m + 0 }' \
         "$work"/export-sim/rank-*.times)
  awk -v a="$stock" -v b="$ours" -v id="$id" -v tol="$tol" 'BEGIN { d = b > 0 ? (a - b) / b : 1; if (d < 0) d = -d
    printf "phase %s: stock replay %s s, pas2p simulate %s s, difference %.3f %%\n", id, a, b, 100 * d
    exit tol == "" || d < tol ? 0 : 1 }' || fail "the two replays disagree on phase $id"
  n=$((n + 1))
done < "$work/export/times.csv"
(( n > 0 )) || fail "no phase was replayed"
