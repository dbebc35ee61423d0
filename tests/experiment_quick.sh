#!/usr/bin/env bash
# experiment_quick.sh BUILD_DIR OUT_DIR: the CI subset of the PET-vs-AET experiment
# (validation/experiment.sh --quick: cg at test size, np 2, the base and the 2-node vc200, 3
# rounds).  Checks that every run of every path gave a number on every target; that
# experiment.csv has the required columns and one row per (app, target, path) with a PETE
# inside its interval; that every run is in experiment-rounds.csv; that experiment.md and the
# self-contained index.html are written, with the signature's phases.  Timings and accuracy
# are not asserted (the full run's numbers are in validation/results).
set -u
build=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$out"
bash "$here/../validation/experiment.sh" --quick --build "$build" -o "$out" >"$out.log" 2>&1
rc=$?
((rc == 77)) && { grep skipped "$out.log"; exit 77; }
fail() { echo "FAIL: $*"; tail -30 "$out.log"; exit 1; }
((rc == 0)) || fail "experiment.sh --quick exited $rc"
csv=$out/experiment.csv
head -1 "$csv" | grep -q '^app,target,np,rounds,path,aet_median,pet_median,pete,pete_ci_low,pete_ci_high' ||
  fail "experiment.csv lacks the required columns: $(head -1 "$csv")"
[[ $(sed 1d "$csv" | wc -l) == 10 ]] || fail "expected 10 rows (cg x base, vc200 x aet + 4 paths): $(cat "$csv")"
num='^-?[0-9.]+(e[-+]?[0-9]+)?$'
seen=""
while IFS=, read -r app target np rounds path aet pet pete lo hi _; do
  [[ $app == cg && $np == 2 && $rounds == 3 ]] || fail "row $app np $np rounds $rounds"
  for v in "$aet" "$pet" "$pete" "$lo" "$hi"; do [[ $v =~ $num ]] || fail "$target $path: '$v' is not a number"; done
  awk -v p="$pete" -v l="$lo" -v h="$hi" 'BEGIN{exit !(l <= p && p <= h)}' || fail "$target $path: PETE $pete outside [$lo, $hi]"
  seen+=" $target:$path"
done < <(sed 1d "$csv")
for t in base vc200; do
  for p in aet predict replay replay-relative simulate; do
    [[ " $seen " == *" $t:$p "* ]] || fail "no row for $t, $p"
  done
done
# every run: 3 rounds x 2 targets x (AET + 4 paths), plus 3 base replays and the trace
n=$(awk -F, 'NR > 1 && $10 == 1' "$out/experiment-rounds.csv" | wc -l)
((n >= 35)) || fail "experiment-rounds.csv has $n good runs, not 35"
bad=$(awk -F, 'NR > 1 && $10 != 1' "$out/experiment-rounds.csv" | head -1)
[[ -z $bad ]] || fail "a run failed: $bad"
grep -q "^| cg 64 600 | vc200 |" "$out/experiment.md" || fail "no vc200 row in experiment.md"
grep -q "^| predict | 2 |" "$out/experiment.md" || fail "no predict summary in experiment.md"
html=$out/index.html
[[ -s $html ]] || fail "no index.html"
grep -Eqi 'src=|https?://' "$html" && fail "index.html refers to something outside itself"
for want in 'class=scatter' '<table class=heat>' '<section class=pas2p-report>' 'Timeline of the first phase'; do
  grep -qF "$want" "$html" || fail "index.html has no '$want'"
done
[[ -s $out/platform-vc200.xml && -s $out/platform-base.xml && -s $out/signatures/cg.sig.xml ]] ||
  fail "platforms or signature missing"
echo "ok: experiment --quick: $(sed 1d "$csv" | wc -l) rows, $n runs, report and page"
