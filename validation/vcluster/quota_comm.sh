#!/usr/bin/env bash
# What a vcluster's CPU quota does to a code that communicates, by CFS period (issue 22:
# "a slower CPU that behaves like one"; cfs_period.sh is the same question for a phase that
# only computes).  A CPU FRACTION as fast makes each rank's computation 1/FRACTION as long
# and leaves its messages as they are.  Under a quota, a rank that waits for a message
# spins (Open MPI polls) on its budget, and while it is throttled it neither computes nor
# answers its peer: a rendezvous handshake can wait out the rest of a period.
#
# For each application, R interleaved rounds of: the AET at a full core per node (the
# reference: cluster qfull), and the AET at FRACTION of a core for each period (cluster
# qPERIOD), all 2 nodes at RATE.  Expected AET of a CPU FRACTION as fast = the reference's
# AET + its slowest rank's computation x (1/FRACTION - 1) (`pas2p dump`: compute_s); the
# table gives each period's median AET over that (1.00: behaves like a slower CPU; above:
# the quota's stalls).
#
#   bash validation/vcluster/quota_comm.sh [--rounds 3] [--fraction 0.5] [--bandwidth 200mbit]
#        [--periods "10000 5000 2000"] [--apps "lammps md fftlike wavefront"] [--build DIR]
# Needs root (exit 77 "skipped" without), a build, and lmp for lammps.  Prints markdown.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
rounds=3 fraction=0.5 bw=200mbit periods="10000 5000 2000" apps="lammps md fftlike wavefront" build=build
while (($#)); do
  case $1 in
    --rounds) rounds=${2:?}; shift ;;
    --fraction) fraction=${2:?}; shift ;;
    --bandwidth) bw=${2:?}; shift ;;
    --periods) periods=${2:?}; shift ;;
    --apps) apps=${2:?}; shift ;;
    --build) build=${2:?}; shift ;;
    -h | --help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "quota_comm.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[[ $(id -u) == 0 ]] || { echo "quota_comm.sh: skipped: needs root" >&2; exit 77; }
source validation/bench/common.sh
need_build "$build"
build=$(cd "$build" && pwd)
pas2p=$build/bin/pas2p vc=$root/validation/vcluster/vcluster
tmp=$(mktemp -d)
clusters=(qfull)
for p in $periods; do clusters+=("q$p"); done
cleanup() { local c; for c in "${clusters[@]}"; do "$vc" down "$c" >/dev/null 2>&1; done; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
"$vc" down qfull >/dev/null 2>&1
"$vc" up qfull --nodes 2 --bandwidth "$bw" --cpu 1 >&2 || exit $?
for p in $periods; do
  "$vc" down "q$p" >/dev/null 2>&1
  "$vc" up "q$p" --nodes 2 --bandwidth "$bw" --cpu "$fraction" --period "$p" >&2 || exit $?
done

app_cmd() { # the program and its arguments at the experiment's size, into CMD
  if [[ $1 == lammps ]]; then
    CMD=(lmp -in "$root/validation/lammps/in.lj" -log none -nocite -screen none -var x 1 -var y 1 -var z 1 -var steps 600)
  else
    local args; args=$(awk -F'|' -v a="$1" '{gsub(/ /, "", $1)} $1 == a {print $5}' validation/apps/sizes.txt | xargs)
    read -r -a CMD <<<"$args"
    CMD=("$build/apps/$1" "${CMD[@]}")
  fi
}
# one traced run on cluster $1: "AET compute_s_of_the_slowest_rank" (or nothing)
one() {
  rm -rf "$tmp/t"
  PAS2P_CALIBRATE_MS=0 timeout --kill-after=10 900 "$pas2p" trace -o "$tmp/t" -- "$vc" mpirun "$1" -np 2 "${CMD[@]}" \
    >/dev/null 2>&1 || return 0
  "$pas2p" dump "$tmp/t" | awk '$1 == "AET" {a = $3} $1 ~ /^[0-9]+$/ && NF >= 4 && $3 > c {c = $3} END {if (a != "") print a, c}'
}
median() { sort -g | awk '{a[NR]=$1} END{if (NR) print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

echo "## Communication under a CFS quota of $fraction core, 2 nodes at $bw ($(date -u +%F), $(nproc) cores, commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo
echo "Median of $rounds interleaved rounds.  expected = full-core AET + its slowest rank's computation x (1/$fraction - 1); ratio = AET under the quota / expected."
echo
printf '| app | full core: AET s | computation s | expected s |'
for p in $periods; do printf ' %s ms: AET s | ratio |' "$(awk -v p="$p" 'BEGIN{print p/1000}')"; done
echo
printf '|---|---|---|---|'; for p in $periods; do printf '%s' '---|---|'; done; echo
for app in $apps; do
  app_cmd "$app"
  : >"$tmp/full.aet"; : >"$tmp/full.c"
  for p in $periods; do : >"$tmp/$p.aet"; done
  for ((r = 1; r <= rounds; r++)); do
    read -r a c <<<"$(one qfull)"
    [[ -n ${a:-} ]] && { echo "$a" >>"$tmp/full.aet"; echo "$c" >>"$tmp/full.c"; }
    line="$app round $r: full ${a:-fail}"
    for p in $periods; do
      read -r a c <<<"$(one "q$p")"
      [[ -n ${a:-} ]] && echo "$a" >>"$tmp/$p.aet"
      line+=" $p:${a:-fail}"
    done
    echo "quota_comm: $line" >&2
  done
  fa=$(median <"$tmp/full.aet") fc=$(median <"$tmp/full.c")
  [[ -n $fa ]] || { echo "| $app | failed | | |"; continue; }
  ex=$(awk -v a="$fa" -v c="$fc" -v f="$fraction" 'BEGIN{printf "%.3f", a + c * (1 / f - 1)}')
  printf '| %s | %.3f | %.3f | %s |' "$app" "$fa" "$fc" "$ex"
  for p in $periods; do
    m=$(median <"$tmp/$p.aet")
    if [[ -n $m ]]; then printf ' %.3f | %.2f |' "$m" "$(awk -v m="$m" -v e="$ex" 'BEGIN{print m / e}')"; else printf ' fail | |'; fi
  done
  echo
done
