#!/usr/bin/env bash
# How `pas2p predict` should turn the target's timed occurrences into a PhaseET: the
# estimators compared on the same runs (the evidence for pas2p_times_read, pas2p_pet.h).
#
#   bash validation/bench/predict_estimators.sh [--build DIR] [--np N] [--runs R]
#                                               [--apps "a b lammps"] [--traces T]
#                                               [--occurrences N]
#
# Per application (validation size; LAMMPS's LJ melt, 32000 atoms, 400 steps; np N, default 2): T traces (default 3), each analysed
# into a signature; then R rounds (default 6) of a `pas2p predict --occurrences N` run
# (default 7), on the signatures in turn, and a traced run for the AET.  Each predict run's
# times are then read by every estimator, with the first 3 values (the ones the default
# --occurrences 3 waits for), the first 7 and the first 15 (when the runs have them), and
# its PETE taken against the median AET of all the application's runs.  PAS2P_BENCH_KEEP=DIR keeps the runs there (predict_estimators.py DIR
# reads them again).
# Prints, per estimator and window, the mean over applications of |median PETE| and each
# application's run PETEs.  Needs python3.  Timings are never asserted by the tests.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build np=2 runs=6 apps="stencil2d cg wavefront cartsweep ftn_ring adi md" traces=3 occurrences=7
source validation/bench/common.sh
bench_option() { case $1 in --traces) traces=$2 ;; --occurrences) occurrences=$2 ;; *) return 1 ;; esac; }
bench_parse predict_estimators.sh 17 "$@"
tmp=${PAS2P_BENCH_KEEP:-$(mktemp -d)}; mkdir -p "$tmp"; [[ -n ${PAS2P_BENCH_KEEP:-} ]] || trap 'rm -rf "$tmp"' EXIT

echo "## Predict's estimator, compared on the same runs ($(date -u +%F), $(nproc) cores, commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo
echo "np $np, $traces traces and $runs predict (--occurrences $occurrences) / AET rounds per application."
echo
# the bundled applications at validation size, then LAMMPS (validation/lammps: Debian's lmp,
# its LJ melt, 32000 atoms, 400 steps) when asked for
{ grep -v '^#' validation/apps/sizes.txt; echo "lammps | | | 400 |"; } >"$tmp/sizes"
while IFS="|" read -r -u 3 app _np _targs vargs _eargs; do
  app=$(echo "$app" | xargs); vargs=$(echo "$vargs" | xargs)
  [[ -z $app || $app == \#* ]] && continue
  [[ " $apps " != *" $app "* ]] && continue
  d=$tmp/$app; mkdir -p "$d"
  if [[ $app == lammps ]]; then
    command -v lmp >/dev/null || { echo "predict_estimators.sh: no LAMMPS binary (lmp): bash scripts/setup.sh" >&2; exit 2; }
    launchcmd=("${mpirun[@]}" -np "$np" lmp -in validation/lammps/in.lj -log none -nocite -screen none
               -var x 1 -var y 1 -var z 1 -var steps "$vargs")
  else
    launchcmd=("${mpirun[@]}" -np "$np" "$build/apps/$app" $vargs)
  fi
  for ((s = 1; s <= traces; s++)); do
    "$pas2p" trace -o "$d/t" -- "${launchcmd[@]}" >/dev/null
    "$pas2p" dump "$d/t" | field AET >>"$d/aet"
    "$pas2p" analyze "$d/t" -o "$d/s$s.xml" >/dev/null
    rm -rf "$d/t"
  done
  for ((k = 1; k <= runs; k++)); do
    s=$(((k - 1) % traces + 1))
    "$pas2p" predict "$d/s$s.xml" --occurrences "$occurrences" -o "$d/p$k" -- "${launchcmd[@]}" >"$d/p$k.out" 2>&1 ||
      { echo "$app: predict failed: $(grep -m1 'pas2p predict:' "$d/p$k.out")" >&2; exit 1; }
    echo "$s" >"$d/p$k/sig"
    "$pas2p" trace -o "$d/t" -- "${launchcmd[@]}" >/dev/null
    "$pas2p" dump "$d/t" | field AET >>"$d/aet"
    rm -rf "$d/t"
  done
  echo "- $app $vargs: AET median $(median <"$d/aet") s, range $(rng "$d/aet") s"
done 3< "$tmp/sizes"
echo
python3 validation/bench/predict_estimators.py "$tmp"
