#!/usr/bin/env bash
# The base runs pooled: `pas2p trace --runs 3` keeps the two runs it does not keep as the
# trace in DIR/run-K, `pas2p analyze DIR` says so and writes, for each phase found with the
# same id, weight and occurrences in all three, the median of their phase mean times and of
# each recorded occurrence's time (runs, runs_time_mean_s, runs_time_s: checked against the three
# runs analysed one by one); `pas2p predict` pairs with them (paired_runs); a run whose
# phases differ (other arguments) or whose trace is damaged is said and left out, and the
# signature is the kept run's; pas2p show says the runs are pooled.
# usage: pool_runs.sh PAS2P WORKDIR APP -- MPIRUN...   (APP: the bundled stencil2d)
set -euo pipefail
pas2p=$1 work=$2 app=$3
shift 4
fail() { echo "FAIL: $*" >&2; exit 1; }
d=$work/pool-runs
rm -rf "$d"; mkdir -p "$d"
"$pas2p" trace --runs 3 -o "$d/t" -- "$@" -np 2 "$app" 256 40 >"$d/trace.log" 2>&1 ||
  fail "pas2p trace --runs 3 failed: $(grep -v '^pas2p: no hardware counters' "$d/trace.log" | tail -n 15)"
kept=$(awk -F' = ' '$1 == "kept_run" { print $2 }' "$d/t/manifest")
others=$(cd "$d/t" && ls -d run-* | xargs)
[[ $others == "$(for k in 1 2 3; do [[ $k == "$kept" ]] || printf 'run-%s ' $k; done | xargs)" ]] ||
  fail "the runs kept aside are '$others' (kept run $kept)"
out=$("$pas2p" analyze "$d/t" -o "$d/sig.xml" 2>&1) || fail "analyze failed: $out"
grep -Eq "^base runs = 3 .* ([1-9][0-9]*) phase\(s\) pooled over 3" <<<"$out" || fail "no 'base runs = 3' line: $out"
# each run alone (the kept one's files copied out of DIR, so that it has no run-K), at the
# granularity the kept run's analysis ended with, as the pooling does (a noisy run, ASan's,
# can make the automatic granularity coarsen one run and not another)
gran=$(awk -F' = ' '$1 == "inline events" { print $2 }' <<<"$out")
[[ $gran =~ ^[0-9]+$ ]] || fail "no 'inline events' line: $out"
mkdir "$d/k"; cp "$d/t/manifest" "$d"/t/rank-*.p2t "$d/k/"
for r in k t/run-1 t/run-2 t/run-3; do
  [[ -d $d/$r ]] && { "$pas2p" analyze "$d/$r" --inline-events "$gran" -o "$d/$(tr / _ <<<"$r").xml" >/dev/null 2>&1 || fail "analyze $r failed"; }
done
# the pooled means against the runs' own (rank 0's phases), with awk: phase id -> mean time
means() { # FILE ATTR: "id value" per phase of the first rank, and "id.j value" per occurrence
  awk -v a="$2" '/<rank / { n++ } n == 1 && /<phase / { match($0, / id="[0-9]+"/); id = substr($0, RSTART + 5, RLENGTH - 6); j = 0
      if (match($0, " " a "_mean_s=\"[^\"]+\"")) print id, substr($0, RSTART + length(a) + 10, RLENGTH - length(a) - 11) }
    n == 1 && /<occurrence / { if (match($0, " " a "_s=\"[^\"]+\"")) print id "." j, substr($0, RSTART + length(a) + 5, RLENGTH - length(a) - 6); j++ }' "$1"
}
files=("$d/k.xml"); for k in 1 2 3; do [[ -f $d/t_run-$k.xml ]] && files+=("$d/t_run-$k.xml"); done
((${#files[@]} == 3)) || fail "not three runs analysed: ${files[*]}"
{ means "${files[0]}" time; means "${files[1]}" time; means "${files[2]}" time; } |
  sort -k1,1 -k2,2g | awk '{ v[$1, ++c[$1]] = $2 } END { for (k in c) if (c[k] == 3) print k, v[k, 2] }' | sort >"$d/expected"
means "$d/sig.xml" runs_time | sort >"$d/pooled"
[[ -s $d/pooled ]] || fail "the signature has no runs_time attributes"
join "$d/pooled" "$d/expected" | awk '{ if ($2 - $3 > 1e-8 * $3 || $3 - $2 > 1e-8 * $3) { print "phase " $1 ": pooled " $2 ", median of the runs " $3; bad = 1 } } END { exit bad }' ||
  fail "pooled times are not the runs' medians"
[[ $(join "$d/pooled" "$d/expected" | wc -l) == $(wc -l <"$d/pooled") ]] || fail "a pooled value has no counterpart in every run"
grep -q 'runs="3"' "$d/sig.xml" || fail "no phase says runs=\"3\""
"$pas2p" show "$d/sig.xml" | grep -q "^base runs = 3 " || fail "pas2p show does not say the runs are pooled"
# everything else is the kept run's: the signature without the runs attributes is the kept run's alone
diff <(sed -E 's/ runs="[0-9]+"| runs_time_mean_s="[^"]*"| runs_time_s="[^"]*"//g' "$d/sig.xml") "$d/k.xml" >/dev/null ||
  fail "the pooled signature differs from the kept run's in more than the runs attributes"
# predict pairs with the runs' means
out=$("$pas2p" predict "$d/sig.xml" -o "$d/p" -- "$@" -np 2 "$app" 256 40 2>&1) || fail "predict failed: $out"
grep -q "median of the same occurrence in the 3 base runs" <<<"$out" || fail "predict does not say it paired with the runs' medians: $out"
grep -q 'paired_runs="3"' "$d/p/prediction.xml" || fail "prediction.xml has no paired_runs"
# a run with other arguments (another length): its phases differ, said, not pooled
rm -rf "$d/t/run-$(( kept == 1 ? 2 : 1 ))"
"$pas2p" trace -o "$d/t/run-9" -- "$@" -np 2 "$app" 256 30 >/dev/null 2>&1 || fail "tracing run-9 failed"
out=$("$pas2p" analyze "$d/t" -o "$d/sig2.xml" 2>&1) || fail "analyze with a differing run failed: $out"
grep -q "run-9 (pas2p trace --runs): [0-9]* phase(s) of the kept run (counted over its ranks) are not in it" <<<"$out" ||
  fail "the differing run is not said: $out"
echo "$out" | grep -E "^base runs|run-9"
# a run whose trace is damaged (a rank file cut to its first bytes): said by name, not
# pooled, and the signature is still written from the others
mkdir "$d/t/run-8"; cp "$d/t/run-9/manifest" "$d/t/run-9"/rank-*.p2t "$d/t/run-8/"
head -c 20 "$d/t/run-9/rank-00000.p2t" >"$d/t/run-8/rank-00000.p2t"
out=$("$pas2p" analyze "$d/t" -o "$d/sig3.xml" 2>&1) || fail "analyze with a damaged run failed: $out"
grep -q "run-8 (pas2p trace --runs): not pooled: .*rank-00000" <<<"$out" || fail "the damaged run is not named: $out"
[[ -s $d/sig3.xml ]] || fail "no signature beside a damaged run"
echo "$out" | grep -E "run-8"
echo "pooled runs OK"
