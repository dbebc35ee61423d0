#!/usr/bin/env bash
# Portable-replay benchmark (issue "Portable replay": on the base machine itself, bundled
# SPMD applications: PETE <= 5 % with the compute kernel; the replay's own wall time <= 5 %
# of AET plus the launch time).
#
#   bash validation/bench/replay.sh [--build DIR] [--np N] [--runs R] [--apps "a b"]
#
# Per application (validation/apps/sizes.txt, validation size, np ranks, default 2):
#  1. trace once and analyse with --compute-similarity 0 (phases cut by the calls alone, so
#     that every rank cuts the loop the same way, which a replay needs): the signature and
#     the kernel calibration (base = this machine);
#  2. R times, interleaved so that all see the same machine state: a measured run (AET, from
#     a traced run as in predict.sh), `pas2p replay --compute kernel` and `--compute sleep`;
#  3. PETE = (median PET - median AET) / median AET for each mode, the per-run PETEs of the
#     kernel mode, and the kernel replay's wall time against the AET;
#  4. the machine's drift: every traced run calibrates the compute kernel at its end, so the
#     kernel rate of the AET runs over that of the signature's run says how much faster or
#     slower this machine's cores were when the AETs were measured than when the signature
#     (and its kernel amount) was made.  A replay runs at the machine's speed of its moment.
# Launch time = median wall of `mpirun -np N` of an empty MPI program (bench/mpi_empty).
# Prints Markdown.  Timings are never asserted by the tests.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build np=2 runs=3 apps="stencil2d cg wavefront cartsweep ftn_ring"
source validation/bench/common.sh
bench_parse replay.sh 20 "$@"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
launch=$(launch_time "$np")
launch_true=$(launch_time "$np" /bin/true)

echo "## Portable replay on the base machine ($(date -u +%F), $(nproc) cores, commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo
echo "np $np, $runs interleaved AET / replay (kernel) / replay (sleep) runs per application," \
     "--reps 3; launch time (mpirun -np $np of an empty MPI program: MPI_Init, MPI_Finalize)" \
     "$(printf '%.3f' "$launch") s (mpirun -np $np /bin/true: $(printf '%.3f' "$launch_true") s)."
echo
echo "| app | AET s median (range) | PET kernel s | PETE kernel | run PETEs | PET sleep s | PETE sleep | replay wall s | (wall - launch)/AET | core speed at AET runs / at trace |"
echo "|---|---|---|---|---|---|---|---|---|---|"
while IFS="|" read -r -u 3 app _np _targs vargs _eargs; do
  app=$(echo "$app" | xargs); vargs=$(echo "$vargs" | xargs)
  [[ -z $app || $app == \#* ]] && continue
  [[ " $apps " != *" $app "* ]] && continue
  launchcmd=("${mpirun[@]}" -np "$np" "$build/apps/$app" $vargs)
  rm -rf "$tmp/sig"
  "$pas2p" trace -o "$tmp/sig" -- "${launchcmd[@]}" >/dev/null
  "$pas2p" analyze "$tmp/sig" --compute-similarity 0 -o "$tmp/sig.xml" >/dev/null
  krate() { awk -F' = ' '$1 == "kernel_rate" { n = split($2, v, ","); for (i = 1; i <= n; i++) s += v[i]; print s / n }' "$1/manifest"; }
  ksig=$(krate "$tmp/sig")
  : >"$tmp/aet"; : >"$tmp/pk"; : >"$tmp/ps"; : >"$tmp/wall"; : >"$tmp/pair"; : >"$tmp/drift"
  for ((i = 0; i < runs; i++)); do
    rm -rf "$tmp/a" "$tmp/k" "$tmp/s"
    "$pas2p" trace -o "$tmp/a" -- "${launchcmd[@]}" >/dev/null
    aet=$("$pas2p" dump "$tmp/a" | field AET)
    awk -v a="$(krate "$tmp/a")" -v b="$ksig" 'BEGIN { print a / b }' >>"$tmp/drift"
    "$pas2p" replay "$tmp/sig.xml" -o "$tmp/k" -- "${mpirun[@]}" -np "$np" >"$tmp/out" 2>&1 ||
      { echo "| $app | replay failed: $(grep -m1 'pas2p replay:' "$tmp/out") |"; continue 2; }
    pk=$(field PET <"$tmp/out"); field wall <"$tmp/out" >>"$tmp/wall"
    "$pas2p" replay "$tmp/sig.xml" --compute sleep -o "$tmp/s" -- "${mpirun[@]}" -np "$np" >"$tmp/out" 2>&1 ||
      { echo "| $app | replay (sleep) failed: $(grep -m1 'pas2p replay:' "$tmp/out") |"; continue 2; }
    field PET <"$tmp/out" >>"$tmp/ps"
    echo "$aet" >>"$tmp/aet"; echo "$pk" >>"$tmp/pk"
    awk -v p="$pk" -v a="$aet" 'BEGIN{printf "%+.1f\n", (p-a)/a*100}' >>"$tmp/pair"
  done
  a=$(median <"$tmp/aet"); k=$(median <"$tmp/pk"); s=$(median <"$tmp/ps"); w=$(median <"$tmp/wall")
  printf '| %s %s | %.3f (%s) | %.3f | %+.2f %% | %s | %.3f | %+.2f %% | %.3f | %.2f %% | %s |\n' \
    "$app" "$vargs" "$a" "$(rng "$tmp/aet")" "$k" "$(awk -v p="$k" -v a="$a" 'BEGIN{print (p-a)/a*100}')" \
    "$(paste -sd' ' "$tmp/pair")" "$s" "$(awk -v p="$s" -v a="$a" 'BEGIN{print (p-a)/a*100}')" "$w" \
    "$(awk -v w="$w" -v l="$launch" -v a="$a" 'BEGIN{print (w-l)/a*100}')" \
    "$(awk '{printf "%s%.2f", (NR > 1 ? " " : ""), $1}' "$tmp/drift")"
done 3< validation/apps/sizes.txt
