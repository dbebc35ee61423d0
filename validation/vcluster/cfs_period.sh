#!/usr/bin/env bash
# What a cgroup-v1 CPU quota does to a few-millisecond phase, by CFS period (issue 22:
# "a slower CPU that behaves like one").  A vcluster node at FRACTION of a core is a CFS
# quota: FRACTION x PERIOD of CPU time per PERIOD.  A CPU that is really FRACTION as fast
# would make every phase 1/FRACTION as long.  This measures, on one pinned core:
#   full   a phase of PHASE_MS of work with the whole core (the reference);
#   quota  the same phase in a cgroup at FRACTION, for each period,
# with the phases back to back (a compute-bound rank) and with an idle gap as long as the
# phase between them (a rank that waits for messages half of the time), R interleaved
# rounds.  Prints a markdown table: each configuration's mean phase time over the full
# core's x 1/FRACTION (1.00 = behaves like a slower CPU; the mean, because under a quota
# most phases run at full speed and a few wait out the rest of a period).
# --bytes B: the phase streams over an array of B bytes (phase_probe.c) instead of computing
# on a register: whether a rank that idles (throttled, or waiting) finds its data still in
# the caches; the full-core row then also says what an idle gap alone costs.
#
#   bash validation/vcluster/cfs_period.sh [--phase-ms 2] [--fraction 0.5] [--rounds 3]
#                                          [--periods "100000 20000 10000 5000 2000"]
#                                          [--bytes 0]
# Needs root and the cgroup-v1 cpu controller (exit 77 "skipped" without).
set -uo pipefail
cd "$(dirname "$0")/../.."
phase_ms=2 fraction=0.5 rounds=3 periods="100000 20000 10000 5000 2000" n=200 bytes=0
while (($#)); do
  case $1 in
    --phase-ms) phase_ms=${2:?}; shift ;;
    --fraction) fraction=${2:?}; shift ;;
    --rounds) rounds=${2:?}; shift ;;
    --periods) periods=${2:?}; shift ;;
    --bytes) bytes=${2:?}; shift ;;
    -h | --help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "cfs_period.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[[ $(id -u) == 0 ]] || { echo "cfs_period.sh: skipped: needs root" >&2; exit 77; }
cpu=/sys/fs/cgroup/cpu
[[ -f $cpu/cpu.cfs_quota_us ]] || { echo "cfs_period.sh: skipped: no cgroup-v1 cpu controller at $cpu" >&2; exit 77; }
tmp=$(mktemp -d)
cg=$cpu/pas2p-cfsprobe-$$
cleanup() { [[ -d $cg ]] && { cat "$cg/cgroup.procs" 2>/dev/null | while read -r p; do echo "$p" >"$cpu/cgroup.procs"; done; rmdir "$cg"; }; rm -rf "$tmp"; }
trap cleanup EXIT
cc -O2 -std=c11 -Wall -Wextra -o "$tmp/probe" validation/vcluster/phase_probe.c || { echo "cfs_period.sh: cannot build phase_probe" >&2; exit 1; }
core=$(($(nproc) - 1))
[[ $bytes =~ ^[0-9]+$ ]] || { echo "cfs_period.sh: --bytes needs a whole number, not '$bytes'" >&2; exit 2; }
count=$(taskset -c "$core" "$tmp/probe" --calibrate "$phase_ms" "$bytes") || { echo "cfs_period.sh: phase_probe --calibrate failed" >&2; exit 1; }
mkdir "$cg" || { echo "cfs_period.sh: cannot create cgroup $cg" >&2; exit 1; }
# run: PERIOD_US|full GAP_MS -> median_ms
run() {
  local period=$1 gap=$2
  if [[ $period == full ]]; then
    taskset -c "$core" "$tmp/probe" "$count" "$n" "$gap" "$bytes"
  else
    local q
    q=$(awk -v f="$fraction" -v p="$period" 'BEGIN{q = int(f * p); if (q < 1000) q = 1000; print q}')
    echo -1 >"$cg/cpu.cfs_quota_us" && echo "$period" >"$cg/cpu.cfs_period_us" && echo "$q" >"$cg/cpu.cfs_quota_us" ||
      { echo "cfs_period.sh: cannot set period $period" >&2; exit 1; }
    bash -c 'echo $$ >"$1/cgroup.procs" && exec taskset -c "$2" "$3" "$4" "$5" "$6" "$7"' _ "$cg" "$core" "$tmp/probe" "$count" "$n" "$gap" "$bytes"
  fi | sed 's/.*mean_ms=\([0-9.]*\).*/\1/'
}
declare -A med
for ((r = 0; r < rounds; r++)); do
  for gap in 0 "$phase_ms"; do
    for p in full $periods; do
      med[$p,$gap]+="$(run "$p" "$gap") "
    done
  done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END{print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
what="computing on a register"
((bytes > 0)) && what="streaming over $bytes bytes"
echo "## A $phase_ms ms phase ($what) under a CFS quota of $fraction core ($(date -u +%F), $(nproc) cores, commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo
echo "Median of $rounds interleaved rounds of the mean of $n phases; ratio = quota time / (full-core time / $fraction)."
echo
echo "| period | back to back: phase ms | ratio | with an idle gap of $phase_ms ms: phase ms | ratio |"
echo "|---|---|---|---|---|"
f0=$(echo "${med[full,0]}" | median) f1=$(echo "${med[full,$phase_ms]}" | median)
echo "| full core | $f0 | | $f1 | $(awk -v x="$f1" -v y="$f0" 'BEGIN{printf "%.2f", x / y}') (gaps / back to back) |"
for p in $periods; do
  a=$(echo "${med[$p,0]}" | median) b=$(echo "${med[$p,$phase_ms]}" | median)
  printf '| %s ms | %s | %.2f | %s | %.2f |\n' "$(awk -v p="$p" 'BEGIN{print p/1000}')" "$a" \
    "$(awk -v x="$a" -v y="$f0" -v f="$fraction" 'BEGIN{print x / (y / f)}')" "$b" \
    "$(awk -v x="$b" -v y="$f1" -v f="$fraction" 'BEGIN{print x / (y / f)}')"
done
