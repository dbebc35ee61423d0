#!/usr/bin/env bash
# Signature simulation against full-trace simulation of the same traces, with the relevant
# phases, at several np (global-phases issue: within 3 % on three platforms; at most 10
# relevant phases, the same number at every np for the SPMD codes).  The traces are kept
# in a directory, so that two builds (or two analyze settings) are compared on the same
# traces: a trace already there is not made again.
#
#   bash validation/bench/sig_vs_full.sh --traces DIR [--build DIR] [--nps "2 4 8"]
#        [--apps "a b lammps"] [--platforms "P.xml ..."] [--analyze "OPTIONS"]
#        [--extra "TRACE_DIR ..."]
#
# Traces: DIR/APP.npN, test size (validation/apps/sizes.txt; LAMMPS `in.lj -steps 100
# -box 0.25` at np 2 and 4), np above the cores oversubscribed: noisy traces, which is
# what the comparison needs (both simulations replay the same trace).  Per trace: analyze
# (with --analyze's options), then per platform (default platforms/gbe-cluster.xml; ranks
# round-robin) `simulate` of the signature and `simulate --full-trace`.  --extra: traces
# made elsewhere (NAS BT, a LAMMPS input of one's own), compared the same way, named by
# their directory.  Prints Markdown.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build np=2 runs=1 nps="2 4 8" traces="" aopts="" extra=""
apps="stencil2d cg wavefront taskfarm cartsweep ftn_ring adi md fftlike lammps"
plats=platforms/gbe-cluster.xml
source validation/bench/common.sh
bench_option() {
  case $1 in
    --nps) nps=$2 ;;
    --traces) traces=$2 ;;
    --platforms) plats=$2 ;;
    --analyze) aopts=$2 ;;
    --extra) extra=$2 ;;
    *) return 1 ;;
  esac
}
bench_parse sig_vs_full.sh 18 "$@"
[[ -n $traces ]] || { echo "sig_vs_full.sh: --traces DIR is needed" >&2; exit 2; }
mkdir -p "$traces"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
kv() { awk -F' = ' -v k="$1" '$1 == k {print $2}' "$2" | cut -d' ' -f1; }

# trace NAME LAUNCH...: DIR/NAME unless it is there
trace() {
  local name=$1; shift
  [[ -f $traces/$name/manifest ]] && return 0
  [[ -d $traces/$name ]] && rm -rf "${traces:?}/$name"
  "$pas2p" trace -o "$traces/$name" -- "$@" >/dev/null 2>&1 </dev/null || rm -rf "${traces:?}/$name"
}
list=()
while IFS="|" read -r -u 3 app _np targs _vargs _eargs; do
  app=$(echo "$app" | xargs); targs=$(echo "$targs" | xargs)
  [[ -z $app || $app == \#* || " $apps " != *" $app "* ]] && continue
  for n in $nps; do
    trace "$app.np$n" "${mpirun[@]}" -np "$n" "$build/apps/$app" $targs
    list+=("$app.np$n")
  done
done 3< validation/apps/sizes.txt
if [[ " $apps " == *" lammps "* ]]; then
  for n in $nps; do
    ((n <= 4)) || continue
    trace "lammps.np$n" bash validation/lammps/run.sh -np "$n" -steps 100 -box 0.25 -- "${mpirun[@]}"
    list+=("lammps.np$n")
  done
fi

for t in $extra; do
  [[ -f $t/manifest ]] || { echo "sig_vs_full.sh: $t: not a trace (no manifest)" >&2; exit 2; }
  list+=("$t")
done

echo "## Signature vs full-trace simulation on kept traces ($(date -u +%F), $(nproc) cores, commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo
echo "Traces: $traces; analyze options: ${aopts:-none}; ranks round-robin."
echo
printf '| trace | relevant/phases | coverage | inline events |'
for p in $plats; do printf ' %s |' "$(basename "$p" .xml)"; done; echo
printf '|---|---|---|---|'; for _ in $plats; do printf -- '---|'; done; echo
for name in "${list[@]}"; do
  t=$traces/$name
  [[ $name == /* || $name == ./* || -f $name/manifest ]] && t=$name
  if [[ ! -d $t ]]; then echo "| $name | trace failed | | |"; continue; fi
  # shellcheck disable=SC2086
  if ! "$pas2p" analyze "$t" -o "$tmp/sig.xml" $aopts >"$tmp/a" 2>&1; then
    echo "| $name | analyze failed: $(tail -1 "$tmp/a") | | |"; continue
  fi
  printf '| %s | %s/%s | %s %% | %s |' "$name" "$(kv 'relevant phases' "$tmp/a")" "$(kv phases "$tmp/a")" \
    "$(kv coverage "$tmp/a")" "$(kv 'inline events' "$tmp/a")"
  for p in $plats; do
    rm -rf "$tmp/f" "$tmp/s"
    if ! "$pas2p" simulate --full-trace "$t" --platform "$p" --map round-robin -o "$tmp/f" >"$tmp/fo" 2>&1; then
      if grep -q 'host cores for' "$tmp/fo"; then printf ' (too few hosts) |'; else printf ' full trace failed |'; fi
      continue
    fi
    if ! "$pas2p" simulate "$tmp/sig.xml" --platform "$p" --map round-robin -o "$tmp/s" >"$tmp/so" 2>&1; then
      printf ' refused: %s |' "$(grep -m1 'pas2p simulate:' "$tmp/so" | sed 's/^pas2p simulate: //')"; continue
    fi
    awk -v s="$(kv PET "$tmp/so")" -v f="$(kv PET "$tmp/fo")" 'BEGIN{printf " %+.2f %% |", (s-f)/f*100}'
  done
  echo
done
