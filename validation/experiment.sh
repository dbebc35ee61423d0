#!/usr/bin/env bash
# The PET-vs-AET experiment on real, different targets (validation/README.md).
#
#   bash validation/experiment.sh [--quick] [--runs R] [--apps "a b"] [--targets "t1 t2"]
#                                 [--build DIR] [-o DIR]
#
# For each bundled SPMD application (validation/apps/sizes.txt, validation size, np 4):
#  0. `pas2p calibrate` of the base: its platform (np hosts sharing this machine's cores);
#  1. on the base (this machine, shared memory): trace once and analyse (TFAT), replay R
#     times (the one of median PET is the reference of `replay --relative`), simulate once
#     on the base's platform (the trace's kernel calibration as base speed);
#  2. on each target, R rounds of: a traced run (its AET: MPI_Init -> MPI_Finalize, max
#     over ranks, the signature's definition), a `pas2p predict`, a `pas2p replay` and a
#     `pas2p replay --relative` (to that base replay); AET and PETs are the medians over
#     the rounds (interleaved, because this VM's speed drifts); on a virtual cluster, one
#     `pas2p simulate` with the cluster's own platform (validation/vcluster platform) and
#     one `pas2p simulate --relative` to the base's simulation.
# Targets (virtual clusters built with validation/vcluster, removed at the end):
#   base    this machine itself, mpirun over shared memory
#   vc1g    4 nodes x 1 slot, 1 Gbit/s links, full CPU
#   vc200   4 nodes x 1 slot, 200 Mbit/s links, 0.5 CPU per node
#   vcq     2 nodes x 1 slot, 200 Mbit/s, 0.5 CPU (the --quick target)
# --quick: cg at its test size, np 2, targets base and vcq, R = 3: the CI subset (~1 min).
# Writes DIR/experiment.csv, DIR/experiment.md (table, per-path summary against the
# targets, machine and commit) and DIR/experiment.png (PET vs AET per path); default DIR
# validation/results.  Needs root for the virtual clusters (exit 77 "skipped" without).
# Exit status: 0 when every path produced a prediction, 1 when one failed (it is in the table).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
cmdline="bash validation/experiment.sh${*:+ $*}" # as run, for the report
build=build out=validation/results runs=3 quick=0 apps="" targets=""
while (($#)); do
  case $1 in
    --quick) quick=1 ;;
    --runs) runs=${2:?--runs needs a number}; shift ;;
    --apps) apps=${2:?--apps needs a list}; shift ;;
    --targets) targets=${2:?--targets needs a list}; shift ;;
    --build) build=${2:?--build needs a directory}; shift ;;
    -o) out=${2:?-o needs a directory}; shift ;;
    -h | --help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "experiment.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
source validation/bench/common.sh
[[ -x $build/bin/pas2p-probe ]] || { echo "experiment.sh: build first: cmake --build $build" >&2; exit 1; }
need_build "$build"
[[ $(id -u) == 0 ]] || { echo "experiment.sh: skipped: the virtual clusters need root" >&2; exit 77; }
build=$(cd "$build" && pwd)
export VCLUSTER_PAS2P=${VCLUSTER_PAS2P:-$build/bin/pas2p} # the platforms' calibration: this build's
pas2p=$build/bin/pas2p vc=$root/validation/vcluster/vcluster
if ((quick)); then
  np=2 size=test apps=${apps:-cg} targets=${targets:-base vcq}
else
  np=4 size=validation apps=${apps:-stencil2d cg wavefront cartsweep ftn_ring} targets=${targets:-base vc1g vc200}
fi
declare -A NODES=([vc1g]=4 [vc200]=4 [vcq]=2) BW=([vc1g]=1gbit [vc200]=200mbit [vcq]=200mbit) \
  CPU=([vc1g]=1 [vc200]=0.5 [vcq]=0.5)
for t in $targets; do
  [[ $t == base || -n ${NODES[$t]:-} ]] || { echo "experiment.sh: unknown target '$t' (base vc1g vc200 vcq)" >&2; exit 2; }
  [[ $t == base ]] || ((NODES[$t] >= np)) || { echo "experiment.sh: $t has ${NODES[$t]} nodes for np $np" >&2; exit 2; }
done
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
work=$(mktemp -d)
clusters=()
cleanup() { local c; for c in "${clusters[@]}"; do "$vc" down "$c" >/dev/null 2>&1; done; rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
log() { echo "experiment: $*" >&2; }
num() { awk -v x="$1" 'BEGIN{exit !(x ~ /^[-+0-9.eE]+$/)}'; } # a number, not "fail"/"n/a"
pete() { awk -v p="$1" -v a="$2" 'BEGIN{printf "%+.2f", (p - a) / a * 100}'; }
pe() { num "$1" && pete "$1" "$aet" || echo "$1"; } # PETE of a PET against $aet, or its failure
pct() { awk -v x="$1" -v a="$2" 'BEGIN{printf "%.2f", x / a * 100}'; }

# the base's platform (pas2p calibrate: np hosts sharing this machine's cores, shared-memory
# MPI latency and bandwidth): simulate on the base, and what simulate --relative compares with
log "calibrating the base (pas2p calibrate)"
"$pas2p" calibrate --name base --hosts "$np" -o "$work/base.xml" -- "${mpirun[@]}" >/dev/null ||
  { echo "experiment.sh: pas2p calibrate failed on the base" >&2; exit 1; }
cp "$work/base.xml" "$out/platform-base.xml"
# bring up the virtual clusters (names e<target>, removed on exit)
for t in $targets; do
  [[ $t == base ]] && continue
  "$vc" down "e$t" >/dev/null 2>&1
  "$vc" up "e$t" --nodes "${NODES[$t]}" --bandwidth "${BW[$t]}" --cpu "${CPU[$t]}" >&2 || {
    rc=$?; ((rc == 77)) && exit 77; echo "experiment.sh: cannot build target $t" >&2; exit 1; }
  clusters+=("e$t")
  "$vc" platform "e$t" -o "$work/$t.xml" || { echo "experiment.sh: no platform for $t" >&2; exit 1; }
  cp "$work/$t.xml" "$out/platform-$t.xml"
done
launcher() { # launcher TARGET: the launch without -np
  if [[ $1 == base ]]; then echo "${mpirun[*]}"; else echo "$vc mpirun e$1"; fi
}

commit=$(git rev-parse --short HEAD 2>/dev/null || echo '?')
git diff --quiet HEAD 2>/dev/null || commit+="+dirty"
host="$(uname -n) $(nproc) cores $(awk -F': ' '/model name/{print $2; exit}' /proc/cpuinfo)"
csv=$out/experiment.csv failed=0
echo "app,args,np,target,aet_s,aet_min_s,aet_max_s,tfat_s,tfat_pct,predict_pet_s,predict_pete_pct,predict_set_pct,predict_wall_s,replay_pet_s,replay_pete_pct,replay_wall_s,simulate_pet_s,simulate_pete_pct,simulate_wall_s,predict_pet_min_s,predict_pet_max_s,replay_pet_min_s,replay_pet_max_s,replay_rel_pet_s,replay_rel_pete_pct,replay_rel_pet_min_s,replay_rel_pet_max_s,simulate_rel_pet_s,simulate_rel_pete_pct,aet_noise_pct,note" >"$csv"

# rounds FILE: the "PET SET wall" lines of R runs -> "median-PET median-SET median-wall min-PET
# max-PET" over the runs that predicted, or "fail ..." when none did
rounds() {
  local ok; ok=$(awk '$1 ~ /^[0-9.eE+-]+$/' "$1")
  if [[ -z $ok ]]; then echo "fail fail fail fail fail"; return; fi
  echo "$(cut -d' ' -f1 <<<"$ok" | median) $(cut -d' ' -f2 <<<"$ok" | median) $(cut -d' ' -f3 <<<"$ok" | median)" \
    "$(cut -d' ' -f1 <<<"$ok" | sort -g | head -1) $(cut -d' ' -f1 <<<"$ok" | sort -g | tail -1)"
}
# run_path NAME OUTFILE CMD...: runs a prediction; prints "PET SET wall" or "fail fail fail"
run_path() {
  local name=$1 o=$2; shift 2
  if "$@" >"$o" 2>&1 && num "$(field PET <"$o")"; then
    echo "$(field PET <"$o") $(field SET <"$o") $(field wall <"$o")"
  else
    log "$name failed: $(grep -m1 -E 'pas2p|error|Error' "$o" || tail -1 "$o")"
    echo "fail fail fail"
  fi
}

while IFS="|" read -r -u 3 app _np targs vargs; do
  app=$(echo "$app" | xargs); targs=$(echo "$targs" | xargs); vargs=$(echo "$vargs" | xargs)
  [[ -z $app || $app == \#* || " $apps " != *" $app "* ]] && continue
  [[ $size == test ]] && args=$targs || args=$vargs
  a=$work/$app; mkdir -p "$a"
  log "$app $args: trace and analyse on the base (np $np)"
  if ! "$pas2p" trace -o "$a/trace" -- "${mpirun[@]}" -np "$np" "$build/apps/$app" $args >"$a/trace.out" 2>&1 ||
     ! "$pas2p" analyze "$a/trace" --compute-similarity 0 -o "$a/sig.xml" >"$a/analyze.out" 2>&1; then
    log "$app: trace/analyse failed: $(cat "$a/trace.out" "$a/analyze.out" 2>/dev/null | grep -m1 'pas2p' || tail -n 1 "$a/trace.out")"
    failed=1; continue
  fi
  tfat=$(field TFAT <"$a/analyze.out"); tfat=${tfat:-0}
  # the simulation on the base's platform, once: the base's simulate, and what
  # `simulate --relative` compares each cluster's simulation with
  read -r sbpet _ sbwall < <(run_path simulate-base "$a/sbase.out" "$pas2p" simulate "$a/sig.xml" \
    --platform "$work/base.xml" --base-speed kernel -o "$a/sbase")
  # the replay on the base, R times: the one of median PET is what `replay --relative`
  # compares each target's replay with (a single one caught this VM's slow kernel mode in
  # experiment D and put cg's relative replays at -35 to -48 %)
  : >"$a/rbase.pets"
  for ((k = 1; k <= runs; k++)); do
    if "$pas2p" replay "$a/sig.xml" -o "$a/rbase.$k" -- "${mpirun[@]}" -np "$np" >"$a/rbase.$k.out" 2>&1; then
      echo "$(field PET <"$a/rbase.$k.out") $k" >>"$a/rbase.pets"
    else
      log "$app: a base replay failed: $(grep -m1 pas2p "$a/rbase.$k.out")"
    fi
  done
  k=$(sort -g "$a/rbase.pets" | awk '{ v[NR] = $2 } END { if (NR) print v[int((NR + 1) / 2)] }')
  [[ -n $k ]] && ln -sfn "$a/rbase.$k" "$a/rbase"
  for t in $targets; do
    read -r -a L <<<"$(launcher "$t")"
    # R rounds, each an AET run, a predict and a replay back to back: the machine's speed
    # drifts over minutes (this VM: 3.5 -> 4.3 s for the same stencil2d run), so AET and
    # predictions are sampled over the same stretch of time and compared as medians
    log "$app on $t: $runs rounds of AET, predict, replay"
    : >"$a/aet.$t"; : >"$a/predict.$t"; : >"$a/replay.$t"; : >"$a/replayrel.$t"; note=""
    for ((k = 0; k < runs; k++)); do
      rm -rf "$a/run" "$a/p.$t.$k" "$a/r.$t.$k" "$a/rr.$t.$k"
      if PAS2P_CALIBRATE_MS=0 "$pas2p" trace -o "$a/run" -- "${L[@]}" -np "$np" "$build/apps/$app" $args >"$a/run.out" 2>&1; then
        "$pas2p" dump "$a/run" | field AET >>"$a/aet.$t"
      else
        note+="AET run failed: $(tail -1 "$a/run.out"); "
      fi
      run_path predict "$a/predict.$t.$k.out" "$pas2p" predict "$a/sig.xml" -o "$a/p.$t.$k" \
        -- "${L[@]}" -np "$np" "$build/apps/$app" $args >>"$a/predict.$t"
      run_path replay "$a/replay.$t.$k.out" "$pas2p" replay "$a/sig.xml" -o "$a/r.$t.$k" \
        -- "${L[@]}" -np "$np" >>"$a/replay.$t"
      run_path replay-relative "$a/replayrel.$t.$k.out" "$pas2p" replay "$a/sig.xml" -o "$a/rr.$t.$k" \
        --relative "$a/rbase" -- "${L[@]}" -np "$np" >>"$a/replayrel.$t"
    done
    if [[ ! -s $a/aet.$t ]]; then
      log "$app on $t: no AET"; failed=1
      echo "$app,$args,$np,$t,fail,,,$tfat$(printf ',%.0s' {1..23})\"${note//\"/\'}\"" >>"$csv"; continue
    fi
    aet=$(median <"$a/aet.$t")
    # the target's own noise: how far one run is from the median, on average (a floor for
    # any prediction of one run)
    noise=$(awk -v m="$aet" '{d = ($1 - m) / m; s += d < 0 ? -d : d; n++} END {printf "%.2f", n ? 100 * s / n : 0}' "$a/aet.$t")
    for path in predict replay replayrel; do
      nf=$(grep -c '^fail' "$a/$path.$t")
      ((nf)) && { failed=1; note+="$path failed in $nf of $runs rounds; "; }
    done
    read -r ppet pset pwall plo phi < <(rounds "$a/predict.$t")
    read -r rpet _ rwall rlo rhi < <(rounds "$a/replay.$t")
    read -r qpet _ _ qlo qhi < <(rounds "$a/replayrel.$t")
    log "$app on $t: AET $aet s, predict $ppet s, replay $rpet s, relative $qpet s${NODES[$t]:+; simulate}"
    spet=$sbpet swall=$sbwall srpet=n/a
    if [[ $t != base ]]; then
      read -r spet _ swall < <(run_path simulate "$a/simulate.$t.out" "$pas2p" simulate "$a/sig.xml" \
        --platform "$work/$t.xml" --base-speed kernel -o "$a/simulate.$t")
      read -r srpet _ _ < <(run_path simulate-relative "$a/simrel.$t.out" "$pas2p" simulate "$a/sig.xml" \
        --platform "$work/$t.xml" --base-speed kernel --relative "$a/sbase" -o "$a/simrel.$t")
    fi
    for v in "$ppet" "$rpet" "$qpet" "$spet" "$srpet"; do [[ $v == fail ]] && failed=1; done
    pset_pct=$(num "$pset" && pct "$pset" "$aet" || echo "$pset")
    echo "$app,$args,$np,$t,$aet,$(sort -g "$a/aet.$t" | head -1),$(sort -g "$a/aet.$t" | tail -1),$tfat,$(pct "$tfat" "$aet"),$ppet,$(pe "$ppet"),$pset_pct,$pwall,$rpet,$(pe "$rpet"),$rwall,$spet,$(pe "$spet"),$swall,$plo,$phi,$rlo,$rhi,$qpet,$(pe "$qpet"),$qlo,$qhi,$srpet,$(pe "$srpet"),$noise,\"${note//\"/\'}\"" >>"$csv"
  done
done 3<validation/apps/sizes.txt

# the Markdown report: the table, then each path's errors against the targets
{
  echo "# PET vs AET on real, different targets"
  echo
  echo "$(date -u '+%F %H:%M UTC'), commit $commit, on $host."
  echo "Command: \`$cmdline\` (runs $runs, np $np, $size size)."
  echo "Base: this machine, shared memory.  Targets:"
  for t in $targets; do
    [[ $t == base ]] && echo "- base: the base machine itself" ||
      echo "- $t: ${NODES[$t]} nodes x 1 slot, ${BW[$t]} links (tc tbf), ${CPU[$t]} CPU per node (cgroup quota); platform \`platform-$t.xml\`"
  done
  echo
  echo "AET, predict PET and replay PET: median of $runs rounds (range in parentheses); simulate: one run."
  echo
  echo "| app | target | AET s | predict PET s | PETE | SET/AET | replay PET s | PETE | replay --relative PET s | PETE | simulate PET s | PETE | simulate --relative PET s | PETE | TFAT/AET | note |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  awk -F, 'function p(x) { return x ~ /^[-+]?[0-9.]+$/ ? x " %" : x }
    function r(x, lo, hi) { return x ~ /^[0-9.]+$/ ? sprintf("%.3f (%.3f-%.3f)", x, lo, hi) : x }
    NR > 1 { note = $31; gsub(/"/, "", note)
      printf "| %s %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $4,
        r($5, $6, $7), r($10, $20, $21), p($11), p($12), r($14, $22, $23), p($15), r($24, $26, $27), p($25),
        $17, p($18), $28, p($29), p($9), note }' "$csv"
  echo
  echo "PETE = (PET - AET) / AET.  Summary over the virtual clusters (target: predict mean |PETE| <= 3 %,"
  echo "max <= 6 %, |mean signed PETE| <= 1.5 %; simulate mean |PETE| <= 10 %):"
  echo
  echo "(AET-noise: one AET run against the median of the $runs, |AET_k - AET| / AET: the floor any"
  echo "prediction of a single run is measured against.)"
  echo
  echo "| path | pairs | mean abs PETE | max abs PETE | mean signed PETE | on the base: mean abs PETE |"
  echo "|---|---|---|---|---|---|"
  for path in AET-noise:30 predict:11 replay:15 replay-relative:25 simulate:18 simulate-relative:29; do
    awk -F, -v name="${path%%:*}" -v c="${path##*:}" '
      NR > 1 && $c ~ /^[-+0-9.]+$/ {
        e = $c + 0; a = e < 0 ? -e : e
        if ($4 == "base") { bn++; bs += a } else { n++; s += a; sg += e; if (a > mx) mx = a }
      }
      END { printf "| %s | %d | %s | %s | %s | %s |\n", name, n,
              n ? sprintf("%.2f %%", s / n) : "-", n ? sprintf("%.2f %%", mx) : "-",
              n ? sprintf("%+.2f %%", sg / n) : "-", bn ? sprintf("%.2f %%", bs / bn) : "-" }' "$csv"
  done
} >"$out/experiment.md"

# the plot: PET against AET, one series per path, and the line PET = AET
if command -v gnuplot >/dev/null; then
  series='x title "PET = AET" lw 1 lc rgb "gray"'
  for c in 10:predict:7 14:replay:5 24:replay-relative:11 17:simulate:9 28:simulate-relative:13; do
    IFS=: read -r col name pt <<<"$c"
    awk -F, -v c="$col" 'NR > 1 && $5 ~ /^[0-9.]/ && $c ~ /^[0-9.]/ {print $5, $c}' "$csv" >"$work/$name.dat"
    [[ -s $work/$name.dat ]] && series+=", \"$work/$name.dat\" title \"$name\" pt $pt ps 1.4"
  done
  gnuplot <<EOF || log "the plot failed"
set terminal pngcairo size 800,600
set output "$out/experiment.png"
set title "pas2p: predicted (PET) vs measured (AET) execution time"
set xlabel "AET (s)"; set ylabel "PET (s)"; set key top left; set grid
set logscale xy
plot $series
EOF
else
  log "no gnuplot: no plot (scripts/setup.sh installs gnuplot-nox)"
fi
log "results: $out/experiment.csv, experiment.md, experiment.png"
cat "$out/experiment.md"
exit $failed
