#!/usr/bin/env bash
# Calibrated local platform benchmark (issue "Simulated-target prediction": simulated PET on
# the platform `pas2p calibrate` writes of this machine within 15 % of the measured AET).
#
#   bash validation/bench/calibrated.sh [--build DIR] [--np N] [--runs R] [--apps "a b"]
#
# Calibrates this machine for np ranks (default 2: one per core, nothing shared), then per
# application (validation/apps/sizes.txt, validation size): trace and analyse, measure AET
# (median of R traced runs, default 3, interleaved with nothing), simulate the signature on
# the calibrated platform twice: with the trace's kernel calibration as base speed (the
# kernel's speed then and the platform's now must agree), and with the platform's own speed
# as base speed (computation as traced, the network simulated).  The column "trace kernel /
# platform" is the first's premise: the trace's kernel rate (mean over ranks, in flop/s)
# over the platform's host speed; on this VM the kernel runs in modes ~1.5x apart.  The last
# column compares the second with the AET of the traced run the signature comes from: what
# the model gets wrong, apart from how far that one run was from the median.  Prints
# Markdown.  Timings are never asserted by the tests.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build np=2 runs=3 apps="stencil2d cg wavefront cartsweep ftn_ring"
source validation/bench/common.sh
bench_parse calibrated.sh 15 "$@"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$pas2p" calibrate --hosts "$np" -o "$tmp/base.xml" -- "${mpirun[@]}" >"$tmp/cal" 2>/dev/null ||
  { echo "calibrated.sh: pas2p calibrate failed" >&2; exit 1; }

echo "## Simulation on the calibrated platform of this machine against measured AET ($(date -u +%F), $(nproc) cores, commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo
echo "\`pas2p calibrate --hosts $np\`: kernel speed $(field speed <"$tmp/cal") flop/s, MPI latency $(field latency <"$tmp/cal") s,"
echo "bandwidth $(field bandwidth <"$tmp/cal") B/s.  np $np; AET = median of $runs traced runs; simulate with \`--base-speed kernel\`"
echo "and with the platform's speed as base speed (computation as traced)."
echo
echo "| app | AET of the trace s | AET s (range) | trace kernel / platform | PET kernel s | PETE kernel | PET as traced s | PETE as traced | as traced vs the trace's AET |"
echo "|---|---|---|---|---|---|---|---|---|"
while IFS="|" read -r -u 3 app _np _targs vargs _eargs; do
  app=$(echo "$app" | xargs); vargs=$(echo "$vargs" | xargs)
  [[ -z $app || $app == \#* ]] && continue
  [[ " $apps " != *" $app "* ]] && continue
  rm -rf "$tmp/tr" "$tmp/s"; : >"$tmp/aet"
  "$pas2p" trace -o "$tmp/tr" -- "${mpirun[@]}" -np "$np" "$build/apps/$app" $vargs >"$tmp/to"
  "$pas2p" analyze "$tmp/tr" -o "$tmp/sig.xml" >/dev/null
  for ((k = 0; k < runs; k++)); do
    rm -rf "$tmp/run"
    PAS2P_CALIBRATE_MS=0 "$pas2p" trace -o "$tmp/run" -- "${mpirun[@]}" -np "$np" "$build/apps/$app" $vargs >/dev/null
    "$pas2p" dump "$tmp/run" | field AET >>"$tmp/aet"
  done
  aet=$(median <"$tmp/aet")
  kr=$(awk -F' = ' -v s="$(field speed <"$tmp/cal")" '$1 == "kernel_rate" {
         n = split($2, v, ","); for (i = 1; i <= n; i++) t += v[i]; printf "%.2f", t / n * 1024 / s }' "$tmp/tr/manifest")
  rm -rf "$tmp/s2"
  if ! "$pas2p" simulate "$tmp/sig.xml" --platform "$tmp/base.xml" --base-speed kernel -o "$tmp/s" >"$tmp/so" 2>&1 ||
     ! "$pas2p" simulate "$tmp/sig.xml" --platform "$tmp/base.xml" --base-speed host -o "$tmp/s2" >"$tmp/so2" 2>&1; then
    echo "| $app $vargs | $(field AET <"$tmp/to") | $aet ($(rng "$tmp/aet")) | ${kr:--} | refused: $(cat "$tmp/so" "$tmp/so2" | grep -m1 'pas2p simulate:' | sed 's/^pas2p simulate: //') | | | | |"
    continue
  fi
  pet=$(field PET <"$tmp/so") pet2=$(field PET <"$tmp/so2") atr=$(field AET <"$tmp/to")
  printf '| %s %s | %s | %s (%s) | %s | %s | %+.2f %% | %s | %+.2f %% | %+.2f %% |\n' "$app" "$vargs" "$atr" "$aet" "$(rng "$tmp/aet")" \
    "${kr:--}" "$pet" "$(awk -v p="$pet" -v a="$aet" 'BEGIN{print (p-a)/a*100}')" \
    "$pet2" "$(awk -v p="$pet2" -v a="$aet" 'BEGIN{print (p-a)/a*100}')" \
    "$(awk -v p="$pet2" -v a="$atr" 'BEGIN{print (p-a)/a*100}')"
done 3< validation/apps/sizes.txt
