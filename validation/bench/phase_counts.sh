#!/usr/bin/env bash
# Relevant phases and coverage at np 2, 4 and 8 (global-phases issue: at most 10 relevant
# phases, the same number at every np for the SPMD codes, coverage >= 95 %).
#
#   bash validation/bench/phase_counts.sh [--build DIR] [--nps "2 4 8"] [--apps "a b"]
#                                         [--size test|validation]
#
# Per application (validation/apps/sizes.txt, test size by default, or validation size: the
# 3-8 s runs the other benchmarks use, where a one-off set-up or end is a smaller share of
# the run; np above the cores is oversubscribed: only the structure is read, no time is
# judged): trace, analyse, print "relevant/phases coverage" per np as Markdown.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build np=2 runs=1 nps="2 4 8" apps="stencil2d cg md adi fftlike wavefront cartsweep"
source validation/bench/common.sh
size=test
bench_option() { case $1 in --nps) nps=$2 ;; --size) size=$2 ;; *) return 1 ;; esac; }
bench_parse phase_counts.sh 11 "$@"
[[ $size == test || $size == validation ]] || { echo "phase_counts.sh: --size is test or validation, not '$size'" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "## Relevant phases by np ($(date -u +%F), $(nproc) cores, commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo
printf '| app (%s size) |' "$size"; for np in $nps; do printf ' np %s: relevant/phases, coverage |' "$np"; done; echo
printf '|---|'; for _ in $nps; do printf -- '---|'; done; echo
while IFS="|" read -r -u 3 app _np targs vargs _eargs; do
  app=$(echo "$app" | xargs); targs=$(echo "$targs" | xargs)
  [[ $size == validation ]] && targs=$(echo "$vargs" | xargs)
  [[ -z $app || $app == \#* ]] && continue
  [[ " $apps " != *" $app "* ]] && continue
  printf '| %s %s |' "$app" "$targs"
  for np in $nps; do
    rm -rf "$tmp/t"
    if ! "$pas2p" trace -o "$tmp/t" -- "${mpirun[@]}" -np "$np" "$build/apps/$app" $targs >/dev/null 2>&1; then
      printf ' trace failed |'; continue
    fi
    "$pas2p" analyze "$tmp/t" -o "$tmp/s.xml" >"$tmp/a" 2>/dev/null || { printf ' analyze failed |'; continue; }
    val() { awk -F' = ' -v k="$1" '$1 == k {print $2}' "$tmp/a"; }
    printf ' %s/%s, %s |' "$(val 'relevant phases')" "$(val phases)" "$(val coverage)"
  done
  echo
done 3< validation/apps/sizes.txt
