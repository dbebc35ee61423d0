#!/usr/bin/env bash
# Real-target prediction benchmark (issue "Real-target prediction": on the base machine
# itself, bundled SPMD applications at validation size: PETE <= 2 %, SET/AET <= 2 %, wall
# time of the predict run <= 10 % of AET plus the launch time).
#
#   bash validation/bench/predict.sh [--build DIR] [--np N] [--runs R] [--apps "a b lammps"]
#                                    [--occurrences K] [--rare-after F] [--size long]
#                                    [--args "app=ARGS;app=ARGS"] [--base-runs N]
#                                    [--base-each-round] [--to-end]
#
# --size long: the long-run sizes of validation/apps/sizes.txt (>= 500 iterations, the size
# the SET/AET target is stated for), LAMMPS (validation/lammps: Debian's lmp, its LJ melt)
# at 5000 steps and 4000 atoms; lammps is only run when named in --apps (600 steps, 32000
# atoms, at validation size).  --args replaces an application's arguments (e.g.
# "stencil2d=2048 1500"; lammps: "STEPS BOX").  --rare-after takes one value or several
# ("1 0.03"): with several, each round runs one predict per value after its AET run (the
# values compared on the same signature and machine state), one row per value.
# --base-runs N (N > 1): the signature from `pas2p trace --runs N` (the other runs kept and
# their phase times pooled by analyze); each round then predicts with it and with the same
# signature without the pooled times (the kept run alone: what --base-runs 1 gives), one
# row each ("pooled N", "kept run"), so that the two are compared on the same trace.
# --base-each-round: the base is traced and analysed anew at the start of every round, and
# that round's predict uses it: each pair is then (base, AET, PET) made within the same
# minute of this machine.  Without it the base is traced once, before the rounds, and every
# pair is measured against that minute's machine state: on this VM an application's time
# moves by up to 25 % between sets made tens of minutes apart (fftlike 512 500: AET medians
# 2.02 and 2.52 s, each set's range within +-5 %), and such a move shows as a lean of every
# pair of the set, which is the base's minute, not the estimator.  The column "base AET"
# (the signature's AET: the kept run's, the median of the pooled ones) shows that lean.
# --to-end: each round is one `pas2p predict --to-end` run instead of an AET run and a
# predict run: the PET is made as an early stop makes it, the run goes on, and its own time
# is that pair's AET (the same run: none of the +-15-20 % that separates two runs on this
# VM).  "wall" is then the whole run's.
# Per application (validation/apps/sizes.txt, validation size, np ranks, default 2):
#  1. trace once and analyse: the signature (base = this machine);
#  2. R times, interleaved so that both see the same machine state: a measured run (AET:
#     MPI_Init -> MPI_Finalize, max over ranks, as the signature's AET is defined; taken
#     from a traced run, the tracer costs < 0.1 % here: results/tracer_overhead.md) and a
#     `pas2p predict` run (PET, SET, wall);
#  3. PETE = (median PET - median AET) / median AET, the per-pair PETEs, and their median
#     with a distribution-free interval (median_ci, common.sh): the pairs are interleaved,
#     so a machine whose speed moves between rounds moves both members of a pair, and the
#     median of the pairs is less at its mercy than the ratio of the two medians (LAMMPS,
#     AETs in two modes 4.5 and 5.8 s: +31.9 % by the medians, +7.5 % by the pairs).
# Launch time = median wall of `mpirun -np N` of an empty MPI program (bench/mpi_empty:
# MPI_Init and MPI_Finalize, which AET leaves out).  Prints Markdown.  Timings are
# never asserted by the tests.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build np=2 runs=3 apps="stencil2d cg wavefront cartsweep ftn_ring" occ="" rare="" args="" size=validation bruns=1
each=0 toend=0
source validation/bench/common.sh
bench_option() {
  case $1 in --occurrences) occ=$2 ;; --rare-after) rare=$2 ;; --args) args=$2 ;; --size) size=$2 ;;
    --base-runs) bruns=$2 ;; --base-each-round) each=1; return 2 ;; --to-end) toend=1; return 2 ;;
    *) return 1 ;; esac
}
bench_parse predict.sh 47 "$@"
[[ $size == validation || $size == long ]] || { echo "predict.sh: --size is validation or long" >&2; exit 2; }
[[ $bruns =~ ^[1-9][0-9]?$ ]] || { echo "predict.sh: --base-runs is 1 to 99" >&2; exit 2; }
[[ $bruns == 1 || $rare != *" "* ]] || { echo "predict.sh: --base-runs N > 1 with one --rare-after value" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
launch=$(launch_time "$np")
launch_true=$(launch_time "$np" /bin/true)

echo "## Real-target prediction on the base machine ($(date -u +%F), $(nproc) cores, commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo
if ((toend)); then pairs="$runs predict --to-end runs per application (each PET against the same run's AET)"
else pairs="$runs interleaved AET/predict pairs per application"; fi
echo "np $np, $size size, $pairs, --occurrences ${occ:-default}, --rare-after ${rare:-default};" \
     "launch time (mpirun -np $np of an empty MPI program: MPI_Init, MPI_Finalize) $(printf '%.3f' "$launch") s" \
     "(mpirun -np $np /bin/true: $(printf '%.3f' "$launch_true") s)."
echo
echo "base: $( ((each)) && echo "traced anew at the start of every round (--base-each-round)" || echo "traced once, before the rounds"), --base-runs $bruns."
echo
echo "| app | base AET s median (range) | AET s median (range) | PET s median (range) | PETE | pair PETEs | median pair PETE [CI] | SET/AET | wall s | (wall - launch)/AET | stop |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
{ grep -v '^#' validation/apps/sizes.txt; echo "lammps | | | 600 1 | | 5000 0.5"; } >"$tmp/sizes"
while IFS="|" read -r -u 3 app _np _targs vargs _eargs largs; do
  app=$(echo "$app" | xargs); vargs=$(echo "$vargs" | xargs); largs=$(echo "$largs" | xargs)
  [[ -z $app || $app == \#* ]] && continue
  [[ " $apps " != *" $app "* ]] && continue
  [[ $size == long ]] && vargs=$largs
  own=$(tr ';' '\n' <<<"$args" | awk -F= -v a="$app" '$1 == a { print $2 }')
  [[ -n $own ]] && vargs=$own
  if [[ $app == lammps ]]; then
    command -v lmp >/dev/null || { echo "predict.sh: no LAMMPS binary (lmp): bash scripts/setup.sh" >&2; exit 2; }
    read -r steps box <<<"$vargs"
    launchcmd=("${mpirun[@]}" -np "$np" lmp -in validation/lammps/in.lj -log none -nocite -screen none
               -var x "${box:-1}" -var y "${box:-1}" -var z "${box:-1}" -var steps "$steps")
  else
    launchcmd=("${mpirun[@]}" -np "$np" "$build/apps/$app" $vargs)
  fi
  # the signature (and, pooled, the same one without the pooled times: the kept run alone)
  make_sig() {
    rm -rf "$tmp/sig"
    "$pas2p" trace --runs "$bruns" -o "$tmp/sig" -- "${launchcmd[@]}" >/dev/null 2>&1
    "$pas2p" analyze "$tmp/sig" -o "$tmp/sig.xml" >/dev/null
    "$pas2p" dump "$tmp/sig" | field AET >>"$tmp/base"
    ((bruns == 1)) ||
      sed -E 's/ runs="[0-9]+"| runs_time_mean_s="[^"]*"| runs_time_s="[^"]*"//g' "$tmp/sig.xml" >"$tmp/kept.xml"
  }
  : >"$tmp/base"
  ((each)) || make_sig
  read -r -a rares <<<"$rare"; ((${#rares[@]})) || rares=("")
  sigs=("$tmp/sig.xml"); labels=("")
  for j in 1 2 3 4 5 6 7 8 9; do ((j < ${#rares[@]})) && sigs+=("$tmp/sig.xml") && labels+=(""); done
  for j in "${!rares[@]}"; do ((${#rares[@]} > 1)) && labels[$j]=" (--rare-after ${rares[$j]})"; done
  if ((bruns > 1)); then
    rares=("${rares[0]}" "${rares[0]}"); sigs=("$tmp/sig.xml" "$tmp/kept.xml"); labels=(" (pooled $bruns)" " (kept run)")
  fi
  for j in "${!rares[@]}"; do : >"$tmp/aet$j"; : >"$tmp/pet$j"; : >"$tmp/set$j"; : >"$tmp/wall$j"; : >"$tmp/pair$j"; : >"$tmp/stops$j"; done
  for ((i = 0; i < runs; i++)); do
    ((each)) && make_sig
    if ((!toend)); then
      rm -rf "$tmp/a"
      "$pas2p" trace -o "$tmp/a" -- "${launchcmd[@]}" >/dev/null
      aet=$("$pas2p" dump "$tmp/a" | field AET)
    fi
    for j in "${!rares[@]}"; do
      rm -rf "$tmp/p"
      r=${rares[$j]}
      "$pas2p" predict "${sigs[$j]}" ${occ:+--occurrences "$occ"} ${r:+--rare-after "$r"} $( ((toend)) && echo --to-end) \
        -o "$tmp/p" -- "${launchcmd[@]}" >"$tmp/out" 2>&1 ||
        { echo "| $app | predict failed: $(grep -m1 'pas2p predict:' "$tmp/out") |"; continue 3; }
      pet=$(field PET <"$tmp/out")
      ((toend)) && aet=$(field AET <"$tmp/out")
      echo "$aet" >>"$tmp/aet$j"
      echo "$pet" >>"$tmp/pet$j"
      field SET <"$tmp/out" >>"$tmp/set$j"; field wall <"$tmp/out" >>"$tmp/wall$j"
      awk -v p="$pet" -v a="$aet" 'BEGIN{printf "%+.1f\n", (p-a)/a*100}' >>"$tmp/pair$j"
      grep -qE "^stop = (early|to the end, as asked)" "$tmp/out" && printf e >>"$tmp/stops$j" || printf n >>"$tmp/stops$j"
    done
  done
  for j in "${!rares[@]}"; do
    a=$(median <"$tmp/aet$j")
    p=$(median <"$tmp/pet$j"); s=$(median <"$tmp/set$j"); w=$(median <"$tmp/wall$j"); stops=$(cat "$tmp/stops$j")
    case $stops in *n*e*|*e*n*) stop="mixed ($stops)" ;; *e*) stop=early ;; *) stop="none (ran to Finalize)" ;; esac
    ((toend)) && [[ $stop == early ]] && stop="could stop (--to-end)"
    label="$app $vargs${labels[$j]}"
    printf '| %s | %.3f (%s) | %.3f (%s) | %.3f (%s) | %+.2f %% | %s | %s | %.2f %% | %.3f | %.2f %% | %s |\n' \
      "$label" "$(median <"$tmp/base")" "$(rng "$tmp/base")" "$a" "$(rng "$tmp/aet$j")" "$p" "$(rng "$tmp/pet$j")" \
      "$(awk -v p="$p" -v a="$a" 'BEGIN{print (p-a)/a*100}')" "$(paste -sd' ' "$tmp/pair$j")" \
      "$(median_ci "$tmp/pair$j")" \
      "$(awk -v s="$s" -v a="$a" 'BEGIN{print s/a*100}')" "$w" \
      "$(awk -v w="$w" -v l="$launch" -v a="$a" 'BEGIN{print (w-l)/a*100}')" "$stop"
  done
done 3< "$tmp/sizes"
