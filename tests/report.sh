#!/usr/bin/env bash
# report.sh PAS2P SIGNATURE PLATFORM WORKDIR: `pas2p report` end to end.  Simulates
# SIGNATURE on PLATFORM (a prediction file), writes the report of the signature and that
# prediction, and checks that it is one self-contained page (no src=/href= resource, no
# URL) that headless Chromium renders: the DOM it builds has the report's title, its
# sections and SVG boxes, and a screenshot of it is a real picture; --fragment gives the
# same sections for another page, which renders them.  Then the bad inputs:
# a missing signature, a prediction given as the signature, an unwritable output.
set -u
pas2p=$1 sig=$2 plat=$3 w=$4
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$w"; mkdir -p "$w"
PAS2P_QUIET=1 "$pas2p" simulate "$sig" --platform "$plat" -o "$w/sim" >"$w/sim.out" 2>&1 ||
  { cat "$w/sim.out"; fail "simulate failed"; }
"$pas2p" report "$sig" "$w/sim/prediction.xml" -o "$w/r.html" --title "test <report>" >"$w/out" 2>&1 ||
  { cat "$w/out"; fail "report failed"; }
grep -q "^report = $w/r.html$" "$w/out" || fail "no 'report =' line"
html=$w/r.html
grep -Eqi '(src|href)=|https?://' "$html" && fail "the page refers to something outside itself"
grep -q "<title>pas2p report: test &lt;report&gt;</title>" "$html" || fail "title not escaped or missing"
chrome=$(command -v chromium || command -v chromium-browser) || fail "chromium is not installed (scripts/setup.sh installs it)"
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --user-data-dir="$w/profile" --window-size=1200,1600)
timeout 90 "$chrome" "${flags[@]}" --dump-dom "file://$html" >"$w/dom.html" 2>"$w/chrome.err" ||
  { tail -5 "$w/chrome.err"; fail "chromium could not load the page"; }
for want in "<h1>pas2p report</h1>" "<h2>Phases</h2>" "Where each rank" "Timeline of the first" \
            "<h2>Predictions</h2>" "<svg" "<rect" "simulate"; do
  grep -qF "$want" "$w/dom.html" || fail "the rendered page has no '$want'"
done
pet=$(sed -n 's/^PET = \([0-9.]*\) s$/\1/p' "$w/sim.out")
[[ -n $pet ]] && { grep -qF "$pet" "$w/dom.html" || fail "the page does not show the simulated PET $pet"; }
timeout 90 "$chrome" "${flags[@]}" --screenshot="$w/r.png" "file://$html" >/dev/null 2>&1 || fail "no screenshot"
size=$(stat -c %s "$w/r.png" 2>/dev/null || echo 0)
(( size > 10000 )) || fail "the screenshot is $size bytes: nothing rendered"
# --fragment: the same sections as one <section> for another page's body (no document of its
# own), the title as its <h2>, the sections under <h3>; a page holding it renders them
"$pas2p" report "$sig" "$w/sim/prediction.xml" --fragment --title "frag <t>" -o "$w/f.html" >"$w/fout" 2>&1 ||
  { cat "$w/fout"; fail "report --fragment failed"; }
[[ $(head -1 "$w/f.html") == "<section class=pas2p-report>" ]] || fail "the fragment does not start with its <section>"
grep -Eqi '<(!DOCTYPE|html|head|body|h1)' "$w/f.html" && fail "the fragment has a document's own elements"
for want in "<h2>frag &lt;t&gt;</h2>" "<h3>Phases</h3>" "<h3>Predictions</h3>" "<h4>1: simulate" "<style>"; do
  grep -qF "$want" "$w/f.html" || fail "the fragment has no '$want'"
done
{ echo "<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>host</title></head><body><h1>host</h1>"
  cat "$w/f.html"; echo "</body></html>"; } >"$w/host.html"
timeout 90 "$chrome" "${flags[@]}" --dump-dom "file://$w/host.html" >"$w/hdom.html" 2>"$w/chrome.err" ||
  { tail -5 "$w/chrome.err"; fail "chromium could not load the page holding the fragment"; }
for want in '<section class="pas2p-report">' "<h3>Where each rank" "<svg" "<rect"; do
  grep -qF "$want" "$w/hdom.html" || fail "the page holding the fragment has no '$want'"
done
# bad inputs: one line, exit 2 for what is read, 1 for what cannot be written
"$pas2p" report "$w/none.xml" -o "$w/x.html" >/dev/null 2>"$w/e1"; rc=$?
(( rc == 2 )) && [[ $(grep -c '' "$w/e1") == 1 ]] || { cat "$w/e1"; fail "missing signature: exit $rc"; }
"$pas2p" report "$w/sim/prediction.xml" -o "$w/x.html" >/dev/null 2>"$w/e2"; rc=$?
(( rc == 2 )) && [[ $(grep -c '' "$w/e2") == 1 ]] || { cat "$w/e2"; fail "a prediction as the signature: exit $rc"; }
"$pas2p" report "$sig" -o "$w/no/such/dir/x.html" >/dev/null 2>"$w/e3"; rc=$?
(( rc == 1 )) && [[ $(grep -c '' "$w/e3") == 1 ]] || { cat "$w/e3"; fail "unwritable output: exit $rc"; }
echo "ok: report rendered ($size-byte screenshot), fragment rendered in a page, bad inputs refused"
