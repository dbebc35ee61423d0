#!/usr/bin/env bash
# Global phases against the thesis's K-means clustering, on the same traces (global-phases
# issue, item 2: phases, coverage, closure, signature-vs-full-trace simulation error).
#
#   bash validation/bench/kmeans_compare.sh [--build DIR] [--nps "2 4 8"] [--apps "a b lammps"]
#                                           [--size test|validation] [--lammps-nps "2 4"]
#
# Per application (validation/apps/sizes.txt; np above the cores is oversubscribed: only the
# structure and the simulations of the trace are compared, no time is judged against a run)
# and LAMMPS (validation/lammps, -steps 100, -box 0.25 at test size, 1 at validation size):
# trace once; `pas2p analyze` and `pas2p simulate` of the signature and of the full trace on
# platforms/gbe-cluster.xml (round-robin); validation/bench/thesis_kmeans.py on the same trace
# (and its closure check of the signature's listed occurrences).  Prints Markdown.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build np=2 runs=1 nps="2 4 8" size=test lnps="2 4"
apps="stencil2d cg wavefront taskfarm cartsweep ftn_ring adi md fftlike lammps"
plat=platforms/gbe-cluster.xml
source validation/bench/common.sh
bench_option() {
  case $1 in
    --nps) nps=$2 ;;
    --lammps-nps) lnps=$2 ;;
    --size) [[ $2 == test || $2 == validation ]] || { echo "kmeans_compare.sh: --size test|validation" >&2; exit 2; }
            size=$2 ;;
    *) return 1 ;;
  esac
}
bench_parse kmeans_compare.sh 11 "$@"
command -v python3 >/dev/null || { echo "kmeans_compare.sh: python3 is needed" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
kv() { awk -F' = ' -v k="$1" '$1 == k {print $2}' "$2"; }

# row APP_LABEL NP LAUNCH...: one table row for a traced run
row() {
  local label=$1 n=$2; shift 2
  rm -rf "$tmp/t" "$tmp/f" "$tmp/s"
  if ! "$pas2p" trace -o "$tmp/t" -- "$@" >/dev/null 2>&1 </dev/null; then
    echo "| $label | $n | trace failed | | | | | | | | | |"; return
  fi
  if ! "$pas2p" analyze "$tmp/t" -o "$tmp/sig.xml" >"$tmp/a" 2>&1; then
    echo "| $label | $n | analyze failed: $(tail -1 "$tmp/a") | | | | | | | | | |"; return
  fi
  local err
  if ! "$pas2p" simulate --full-trace "$tmp/t" --platform "$plat" --map round-robin -o "$tmp/f" >"$tmp/fo" 2>&1; then
    err="full trace failed: $(tail -1 "$tmp/fo")"
  elif ! "$pas2p" simulate "$tmp/sig.xml" --platform "$plat" --map round-robin -o "$tmp/s" >"$tmp/so" 2>&1; then
    err="signature refused: $(tail -1 "$tmp/so")"
  else
    err=$(awk -v s="$(kv PET "$tmp/so" | cut -d' ' -f1)" -v f="$(kv PET "$tmp/fo" | cut -d' ' -f1)" \
          'BEGIN{printf "%+.2f %%", (s-f)/f*100}')
  fi
  if ! python3 validation/bench/thesis_kmeans.py "$tmp/t" --pas2p "$pas2p" --signature "$tmp/sig.xml" \
       >"$tmp/k" 2>&1; then
    echo "| $label | $n | $(kv 'relevant phases' "$tmp/a")/$(kv phases "$tmp/a") | $(kv coverage "$tmp/a") | | $err | thesis_kmeans failed: $(tail -1 "$tmp/k") | | | | | |"
    return
  fi
  local sigc; sigc=$(kv 'signature occurrences closed' "$tmp/k")
  if [[ $sigc =~ ^([0-9]+)/([0-9]+)$ ]]; then
    if [[ ${BASH_REMATCH[1]} == "${BASH_REMATCH[2]}" ]]; then sigc="yes, $sigc"; else sigc="no, $sigc"; fi
  fi
  printf '| %s | %s | %s/%s | %s | %s | %s | %s/%s | %s | %s | %s | %s | %s msg, %s coll |\n' "$label" "$n" \
    "$(kv 'relevant phases' "$tmp/a")" "$(kv phases "$tmp/a")" "$(kv coverage "$tmp/a")" \
    "$sigc" "$err" \
    "$(kv 'relevant per-process phases' "$tmp/k")" "$(kv 'per-process phases' "$tmp/k")" \
    "$(kv K "$tmp/k")" "$(kv coverage "$tmp/k")" "$(kv 'closed clusters' "$tmp/k")" \
    "$(kv 'most closed clusters at any K' "$tmp/k")" \
    "$(kv 'crossing messages' "$tmp/k")" "$(kv 'split collectives' "$tmp/k")"
}

echo "## Global phases against the thesis's K-means ($(date -u +%F), $(nproc) cores, commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $size size)"
echo
echo "| app | np | ours: relevant/phases | ours: coverage | ours: closed (listed occurrences) | ours: signature vs full-trace simulation, $(basename "$plat") | thesis: relevant/per-process phases | thesis: K | thesis: coverage | thesis: closed clusters | thesis: most closed at any K | thesis: crossing |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
while IFS="|" read -r -u 3 app _np targs vargs _eargs; do
  app=$(echo "$app" | xargs); targs=$(echo "$targs" | xargs); vargs=$(echo "$vargs" | xargs)
  [[ -z $app || $app == \#* ]] && continue
  [[ " $apps " != *" $app "* ]] && continue
  args=$targs; [[ $size == validation ]] && args=$vargs
  for n in $nps; do row "$app $args" "$n" "${mpirun[@]}" -np "$n" "$build/apps/$app" $args; done
done 3< validation/apps/sizes.txt
if [[ " $apps " == *" lammps "* ]]; then
  box=0.25; [[ $size == validation ]] && box=1
  for n in $lnps; do
    row "LAMMPS in.lj -steps 100 -box $box" "$n" bash validation/lammps/run.sh -np "$n" -steps 100 -box "$box" -- "${mpirun[@]}"
  done
fi
