#!/usr/bin/env bash
# experiment_quick.sh BUILD_DIR OUT_DIR: the CI subset of the PET-vs-AET experiment
# (validation/experiment.sh --quick: cg, base and a 2-node virtual cluster).  Checks that every
# path gave a number on every target, and that the report, the CSV and the plot are written.
# Timings and accuracy are not asserted (the full run's numbers are in validation/results).
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
[[ $(sed 1d "$csv" | wc -l) == 2 ]] || fail "expected 2 rows (cg x base, vcq): $(cat "$csv")"
num='^[0-9.]+(e[-+]?[0-9]+)?$'
while IFS=, read -r app _ np target aet _ _ _ _ ppet _ _ _ rpet _ _ spet _; do
  [[ $app == cg && $np == 2 ]] || fail "row $app np $np"
  for v in "$aet" "$ppet" "$rpet"; do [[ $v =~ $num ]] || fail "$target: a path gave '$v', not a time"; done
  if [[ $target == vcq ]]; then [[ $spet =~ $num ]] || fail "vcq: simulate gave '$spet'"; fi
done < <(sed 1d "$csv")
grep -q "^| cg 64 600 | vcq |" "$out/experiment.md" || fail "no vcq row in experiment.md"
grep -q "^| predict | 1 |" "$out/experiment.md" || fail "no predict summary in experiment.md"
[[ $(head -c 4 "$out/experiment.png" | od -An -c | tr -d ' ') == "211PNG" ]] || fail "experiment.png is not a PNG"
[[ -s $out/platform-vcq.xml ]] || fail "no platform-vcq.xml"
echo "ok: experiment --quick: $(grep -c . "$csv") lines, report, plot"
