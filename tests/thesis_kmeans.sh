#!/usr/bin/env bash
# thesis_kmeans.sh PAS2P SOURCE_DIR TRACE_DIR OUT_PREFIX: the thesis's K-means benchmark tool
# (validation/bench/thesis_kmeans.py) on a test-size trace of cartsweep (Cartesian row and
# column sub-communicators): it runs, picks the Cartesian communicator as the characteristic
# one (thesis 7.4: every rank, the most phases), prints its table with K rows that add up to
# the relevant per-process phases, and finds every occurrence the analyzer's signature lists
# communication-closed.  Skipped (77) without python3.
set -euo pipefail
pas2p=$1 src=$2 trace=$3 out=$4
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }
fail() { echo "FAIL: $*"; cat "$out.txt"; exit 1; }
"$pas2p" analyze "$trace" -o "$out.xml" >/dev/null
python3 "$src/validation/bench/thesis_kmeans.py" "$trace" --pas2p "$pas2p" --signature "$out.xml" \
  --clusters >"$out.txt" || fail "exit $?"
kv() { awk -F' = ' -v k="$1" '$1 == k {print $2}' "$out.txt"; }
K=$(kv K) rel=$(kv 'relevant per-process phases') all=$(kv 'per-process phases')
[[ $K =~ ^[1-9][0-9]*$ ]] || fail "K = '$K'"
((rel >= K && all >= rel)) || fail "per-process phases $all >= relevant $rel >= K $K does not hold"
[[ $(kv 'characteristic communicator') != MPI_COMM_WORLD ]] || fail "WORLD chosen over the Cartesian communicator"
[[ $(kv 'closed clusters') =~ ^[0-9]+/$K$ ]] || fail "closed clusters not out of K"
[[ $(kv coverage) =~ ^[0-9.]+\ %$ ]] || fail "no coverage"
sig=$(kv 'signature occurrences closed')
[[ $sig =~ ^([0-9]+)/([0-9]+)$ && ${BASH_REMATCH[1]} == "${BASH_REMATCH[2]}" && ${BASH_REMATCH[2]} -gt 0 ]] ||
  fail "signature occurrences closed = '$sig'"
# the cluster table: a header and K rows whose phase counts add up to the relevant phases
sum=$(awk '/^cluster/ {t = 1; next} t && NF {n++; s += $2} END {print n "/" s}' "$out.txt")
[[ $sum == "$K/$rel" ]] || fail "cluster table rows/phases $sum, expected $K/$rel"
echo "ok: K = $K, relevant per-process phases = $rel, signature occurrences closed = $sig"
