#!/usr/bin/env bash
# Simulation benchmark (issue "Simulated-target prediction": signature simulation within
# 3 % of the full-trace simulation of the same run on the same platform, and >= 20x faster
# for a run of >= 1e6 events).
#
#   bash validation/bench/simulate.sh [--build DIR] [--np N] [--apps "a b"] [--platform P]
#
# Per application (validation/apps/sizes.txt, validation size, np ranks, default 2): trace
# and analyse on this machine, then `pas2p simulate` the signature and `--full-trace` the
# trace on platform P (default platforms/gbe-cluster.xml, ranks round-robin over nodes).
# Prints Markdown.  Timings are never asserted by the tests.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build np=2 apps="stencil2d cg wavefront cartsweep ftn_ring" plat=platforms/gbe-cluster.xml
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build=$2; shift ;;
    --np) np=$2; shift ;;
    --apps) apps=$2; shift ;;
    --platform) plat=$2; shift ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "simulate.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
source validation/bench/common.sh
need_build "$build"
pas2p=$build/bin/pas2p
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

echo "## Signature simulation against full-trace simulation ($(date -u +%F), $(nproc) cores, commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo
echo "Platform $plat, np $np, ranks round-robin over its nodes."
echo
echo "| app | events | AET base s | full-trace PET s | signature PET s | difference | full-trace wall s | signature wall s | speed-up |"
echo "|---|---|---|---|---|---|---|---|---|"
while IFS="|" read -r -u 3 app _np _targs vargs _eargs; do
  app=$(echo "$app" | xargs); vargs=$(echo "$vargs" | xargs)
  [[ -z $app || $app == \#* ]] && continue
  [[ " $apps " != *" $app "* ]] && continue
  rm -rf "$tmp/tr" "$tmp/f" "$tmp/s"
  "$pas2p" trace -o "$tmp/tr" -- "${mpirun[@]}" -np "$np" "$build/apps/$app" $vargs >/dev/null
  "$pas2p" analyze "$tmp/tr" -o "$tmp/sig.xml" >"$tmp/a"
  "$pas2p" simulate --full-trace "$tmp/tr" --platform "$plat" --map round-robin -o "$tmp/f" >"$tmp/fo" 2>&1 ||
    { echo "| $app | full-trace failed: $(grep -m1 'pas2p simulate:' "$tmp/fo") |"; continue; }
  if ! "$pas2p" simulate "$tmp/sig.xml" --platform "$plat" --map round-robin -o "$tmp/s" >"$tmp/so" 2>&1; then
    echo "| $app | $(field events <"$tmp/fo") | $(field AET <"$tmp/a") | $(field PET <"$tmp/fo") | refused: $(grep -m1 'pas2p simulate:' "$tmp/so" | sed 's/^pas2p simulate: //') | | $(field wall <"$tmp/fo") | | |"
    continue
  fi
  f=$(field PET <"$tmp/fo") s=$(field PET <"$tmp/so") fw=$(field wall <"$tmp/fo") sw=$(field wall <"$tmp/so")
  printf '| %s %s | %s | %s | %s | %s | %+.2f %% | %.3f | %.3f | %.0fx |\n' "$app" "$vargs" \
    "$(field events <"$tmp/fo")" "$(field AET <"$tmp/a")" "$f" "$s" \
    "$(awk -v s="$s" -v f="$f" 'BEGIN{print (s-f)/f*100}')" "$fw" "$sw" \
    "$(awk -v a="$fw" -v b="$sw" 'BEGIN{print a/b}')"
done 3< validation/apps/sizes.txt
