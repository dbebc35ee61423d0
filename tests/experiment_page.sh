#!/usr/bin/env bash
# experiment_page.sh PAS2P WORKDIR: the experiment's statistics and page
# (validation/experiment_report.py) from a small fixture (tests/data/experiment: made-up
# rounds of two applications on two targets, one run failed and one path that never ran),
# without a virtual cluster.  The phases of each application come from `pas2p report
# --fragment` of a test signature, as validation/experiment.sh makes them.  Checks:
# experiment.csv has the required columns and one row per (app, target, path); experiment.md
# has the table and the per-path summary; index.html is self-contained (no src=, no URL, links
# only within the page) and headless Chromium renders it: the targets, the summary, one
# scatter per path with a point and an interval per pair that gave a PETE and the line
# PET = AET, the PETE heat map, each application's phases (the timeline's boxes).
set -u
pas2p=$1 w=$2
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$w"; mkdir -p "$w"
d=$w/exp
cp -r "$here/data/experiment" "$d" && mkdir -p "$d/phases" || fail "cannot copy the fixture"
"$pas2p" report "$here/data/variants.sig.xml" --fragment --title "cg 64 600" -o "$d/phases/cg.html" >/dev/null ||
  fail "pas2p report --fragment failed"
"$pas2p" report "$here/data/closed-form.sig.xml" --fragment --title "stencil2d 256 100" \
  -o "$d/phases/stencil2d.html" >/dev/null || fail "pas2p report --fragment failed"
python3 "$here/../validation/experiment_report.py" "$d" >"$w/out" 2>&1 || { cat "$w/out"; fail "experiment_report.py failed"; }

# the statistics
head -1 "$d/experiment.csv" | grep -q '^app,target,np,rounds,path,aet_median,pet_median,pete,pete_ci_low,pete_ci_high' ||
  fail "experiment.csv lacks the required columns: $(head -1 "$d/experiment.csv")"
[[ $(sed 1d "$d/experiment.csv" | wc -l) == 20 ]] || fail "expected 20 rows (2 apps x 2 targets x 5 paths)"
grep -q '^cg,vc200,2,3,predict,2.100000,2.650000,26.19,' "$d/experiment.csv" ||
  fail "cg on vc200, predict: not the medians of its 2 good rounds against 3 AETs"
grep -q '^stencil2d,vc200,2,3,replay-relative,6.300000,,,,,3,0,' "$d/experiment.csv" ||
  fail "a path that never ran must have no PET and no PETE"
grep -q '^| cg 64 600 | vc200 |' "$d/experiment.md" || fail "no cg/vc200 row in experiment.md"
grep -q '^| predict | 4 |' "$d/experiment.md" || fail "no predict summary in experiment.md"
# a second run gives the same numbers (the bootstrap is seeded)
cp "$d/experiment.csv" "$w/first.csv"
python3 "$here/../validation/experiment_report.py" "$d" >/dev/null 2>&1 && cmp -s "$d/experiment.csv" "$w/first.csv" ||
  fail "a second run of experiment_report.py gave other numbers"

# the page: self-contained
html=$d/index.html
grep -Eqi 'src=|https?://' "$html" && fail "index.html refers to something outside itself"
grep -Eo 'href="[^"]*"' "$html" | grep -v '^href="#' && fail "index.html links outside itself"
chrome=$(command -v chromium || command -v chromium-browser) || fail "chromium is not installed (scripts/setup.sh installs it)"
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --user-data-dir="$w/profile" --window-size=1250,3000)
timeout 90 "$chrome" "${flags[@]}" --dump-dom "file://$html" >"$w/dom.html" 2>"$w/chrome.err" ||
  { tail -5 "$w/chrome.err"; fail "chromium could not load the page"; }
for want in "PET vs AET on real, different targets" "Per path, against issue 22" "a virtual cluster (fixture)" \
            'class="scatter"' 'class="diag"' 'class="err"' '<table class="heat">' 'id="phases-cg"' \
            'id="phases-stencil2d"' '<section class="pas2p-report">' "Timeline of the first phase occurrences"; do
  grep -qF "$want" "$w/dom.html" || fail "the rendered page has no '$want'"
done
n=$(grep -o 'class="scatter"' "$w/dom.html" | wc -l)
((n == 4)) || fail "$n scatter plots, not one per path (4)"
n=$(grep -o '<circle' "$w/dom.html" | wc -l)
((n == 15)) || fail "$n points, not one per pair that gave a PETE (15)"
n=$(grep -o 'class="err"' "$w/dom.html" | wc -l)
((n == 15)) || fail "$n interval bars, not 15"
# the timeline of variants.sig.xml: its occurrences are boxes in the cg section
sed -n '/id="phases-cg"/,/id="phases-stencil2d"/p' "$w/dom.html" | grep -q '<title>rank 0, phase [0-9]*, events' ||
  fail "cg's phases have no timeline boxes"
timeout 90 "$chrome" "${flags[@]}" --screenshot="$w/index.png" "file://$html" >/dev/null 2>&1 || fail "no screenshot"
size=$(stat -c %s "$w/index.png" 2>/dev/null || echo 0)
((size > 20000)) || fail "the screenshot is $size bytes: nothing rendered"
echo "ok: experiment page rendered ($size-byte screenshot): statistics, 4 scatters, heat map, phases"
