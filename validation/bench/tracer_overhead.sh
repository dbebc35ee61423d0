#!/usr/bin/env bash
# Tracer overhead benchmark (issue "Foundation": <= 60 ns per call, <= 1 % run time).
#
#   bash validation/bench/tracer_overhead.sh [--build DIR] [--runs N] [--np N] [--apps "a b"]
#
# 1. Added cost per intercepted call: validation/bench/pingpong.c under `pas2p trace`,
#    traced (MPI_*) and untraced (PMPI_*) blocks alternating in one run; repeated --runs
#    times, median reported.
# 2. Run-time overhead on the bundled applications at validation size
#    (validation/apps/sizes.txt): untraced and traced runs alternate, --runs of each; the
#    applications' own `time =` lines are compared (median, and min-max spread).  Run-to-run
#    noise on a shared VM is several %, so the table also gives the bound the tracer cannot
#    exceed: events per rank x measured added cost per call / run time.
# Prints Markdown; nothing here is a test (timings are never asserted).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build runs=5 np=2 apps=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build=$2; shift ;;
    --runs) runs=$2; shift ;;
    --np) np=$2; shift ;;
    --apps) apps=$2; shift ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "tracer_overhead.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
source validation/bench/common.sh
need_build "$build"
pas2p=$build/bin/pas2p
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

echo "## Tracer overhead ($(date -u +%F), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo
echo "### Added cost per intercepted call (ping-pong, np 2, traced vs untraced in one run; median of $runs runs)"
echo
for i in $(seq "$runs"); do
  rm -rf "$tmp/pp"
  "$pas2p" trace -o "$tmp/pp" -- "${mpirun[@]}" -np 2 "$build/bench/pingpong" 20000 21 >"$tmp/pp.$i.out"
done
echo "| measure | median | runs |"
echo "|---|---|---|"
for k in pingpong_untraced pingpong_traced pingpong_added procnull_untraced procnull_traced procnull_added; do
  vals=$(grep -h "^$k = " "$tmp"/pp.*.out | awk '{print $3}')
  unit=$(grep -h -m1 "^$k = " "$tmp"/pp.1.out | cut -d' ' -f4-)
  echo "| $k | $(echo "$vals" | median) $unit | $(echo $vals) |"
done
echo
echo "### Run-time overhead on the bundled applications (np $np, validation size, $runs alternating runs each)"
echo
added=$(grep -h "^pingpong_added = " "$tmp"/pp.*.out | awk '{print $3}' | median)
echo "Each pair is an untraced and a traced run back to back (order alternating); the"
echo "overhead is the median over pairs of traced/untraced - 1. The bound is what the"
echo "tracer can cost at most: events per rank x ${added} ns (ping-pong cost per call) / run time."
echo
echo "| app | args | untraced median s | traced median s | overhead (median of pairs) | pairs min..max | events/rank | bound |"
echo "|---|---|---|---|---|---|---|---|"
while IFS="|" read -r -u 3 app _np targs vargs _eargs; do
  app=$(echo "$app" | xargs); vargs=$(echo "$vargs" | xargs)
  [[ -z $app || $app == \#* ]] && continue
  [[ -n $apps && " $apps " != *" $app "* ]] && continue
  : >"$tmp/u"; : >"$tmp/t"; : >"$tmp/r"
  untraced() { "${mpirun[@]}" -np "$np" "$build/apps/$app" $vargs | awk '/^time = /{print $3}'; }
  traced() {
    rm -rf "$tmp/tr"
    "$pas2p" trace -o "$tmp/tr" -- "${mpirun[@]}" -np "$np" "$build/apps/$app" $vargs >"$tmp/out"
    awk '/^events = /{print $3}' "$tmp/out" >"$tmp/ev" # $(traced) is a subshell
    awk '/^time = /{print $3}' "$tmp/out"
  }
  for i in $(seq "$runs"); do
    if (( i % 2 )); then u=$(untraced); t=$(traced); else t=$(traced); u=$(untraced); fi
    echo "$u" >>"$tmp/u"; echo "$t" >>"$tmp/t"
    awk -v u="$u" -v t="$t" 'BEGIN{print (t/u-1)*100}' >>"$tmp/r"
  done
  evr=$(( $(cat "$tmp/ev") / np ))
  printf '| %s | %s | %s | %s | %+.2f %% | %s | %s | %s |\n' "$app" "$vargs" "$(median <"$tmp/u")" \
    "$(median <"$tmp/t")" "$(median <"$tmp/r")" \
    "$(sort -g "$tmp/r" | sed -n '1p;$p' | xargs printf '%+.1f %% ' | sed 's/ $//; s/ /../2')" "$evr" \
    "$(awk -v e="$evr" -v a="$added" -v u="$(median <"$tmp/u")" 'BEGIN{printf "%.3f %%", e*a*1e-9/u*100}')"
done 3< validation/apps/sizes.txt
