#!/usr/bin/env bash
# analyze_mpi.sh PAS2P TRACE_DIR WORK_DIR LAUNCHER...
# The analyzer's MPI mode (`pas2p analyze --mpi K`, bin/pas2p-analyze): the signature of a
# trace of >= 3 ranks analysed by 1, 2 and 3 processes is byte-identical to the one-process
# analysis, and so is what it prints (but TFAT); `mpirun -np 2 pas2p-analyze` by hand does
# the same.  A missing or truncated rank file owned by a process other than 0, a bad
# option, a missing trace: one line, non-zero, no launcher banner.
set -u
pas2p=$1 trace=$2 work=$3; shift 3
fail() { echo "analyze_mpi: $*"; exit 1; }
strip() { grep -v -e '^TFAT = ' -e '^signature = '; }
rm -rf "$work/amp" && mkdir -p "$work/amp" || exit 1
"$pas2p" analyze "$trace" -o "$work/amp/one.xml" >"$work/amp/one.out" || fail "one-process analysis failed"
np=$(awk '$1 == "np" { print $3 }' "$work/amp/one.out")
[[ $np -ge 3 ]] || fail "the trace needs >= 3 ranks (has '$np')"
for k in 1 2 3; do
  "$pas2p" analyze "$trace" -o "$work/amp/k$k.xml" --mpi "$k" -- "$@" >"$work/amp/k$k.out" 2>"$work/amp/k$k.err" ||
    fail "--mpi $k failed: $(cat "$work/amp/k$k.err")"
  cmp -s "$work/amp/one.xml" "$work/amp/k$k.xml" || fail "--mpi $k: the signature differs: $(diff "$work/amp/one.xml" "$work/amp/k$k.xml" | head -5)"
  diff <(strip <"$work/amp/one.out") <(strip <"$work/amp/k$k.out") >/dev/null || fail "--mpi $k prints other results"
  echo "--mpi $k: the same signature and results as one process"
done
bin=$(dirname "$pas2p")/pas2p-analyze
"$@" -np 2 "$bin" "$trace" --jobs 1 -o "$work/amp/byhand.xml" >/dev/null || fail "mpirun -np 2 pas2p-analyze failed"
cmp -s "$work/amp/one.xml" "$work/amp/byhand.xml" || fail "mpirun -np 2 pas2p-analyze: the signature differs"
echo "mpirun -np 2 pas2p-analyze: the same signature"

expect_refusal() { # expect_refusal REGEX ARGS...
  local re=$1 err; shift
  err=$("$pas2p" analyze "$@" 2>&1 >/dev/null) && fail "accepted: $*"
  [[ $(grep -c '' <<<"$err") == 1 && $err =~ $re ]] || fail "for '$*' expected /$re/ in one line, got: $err"
  echo "refused: ${err}"
}
cp -r "$trace" "$work/amp/missing" && rm "$work/amp/missing/rank-00001.p2t"
expect_refusal "rank-00001.p2t: cannot open" "$work/amp/missing" -o "$work/amp/x.xml" --mpi 2 -- "$@"
cp -r "$trace" "$work/amp/cut" && head -c 2000 "$trace/rank-00001.p2t" >"$work/amp/cut/rank-00001.p2t"
expect_refusal "rank-00001.p2t: truncated" "$work/amp/cut" --strict -o "$work/amp/x.xml" --mpi 2 -- "$@"
expect_refusal "unknown option '--bogus'" "$trace" --bogus --mpi 3 -- "$@"
expect_refusal "manifest: cannot open" "$work/amp/none" --mpi 2 -- "$@"
expect_refusal "--mpi needs a number" "$trace" --mpi 0
expect_refusal "a launcher after -- needs --mpi K" "$trace" -- "$@"
# a launch that ends before process 0 can report (mpirun refusing 3 slots on 2 cores printed
# its banner and nothing of pas2p's): the line says so
expect_refusal "the analysis under 'false -np 3' exited 1 before its process 0 reported" "$trace" --mpi 3 -- false
# a truncated file without --strict: analysed in part, said once
rm -f "$work/amp/x.xml"
rc=0
err=$("$pas2p" analyze "$work/amp/cut" -o "$work/amp/x.xml" --mpi 2 -- "$@" 2>&1 >/dev/null) || rc=$?
[[ $rc == 3 ]] || fail "a truncated file without --strict: exit $rc, not 3 (analysed in part): $err"
[[ -s $work/amp/x.xml ]] || fail "a truncated file without --strict: no signature written"
[[ $(grep -c 'truncated' <<<"$err") == 1 ]] || fail "the truncation warning is not said once: $err"
echo "truncated without --strict: analysed, signature written, exit 3, said once"
