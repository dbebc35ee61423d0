#!/usr/bin/env bash
# The runtime's warm-up (tracer/README.md, PAS2P_WARMUP_MS): every rank spins from before
# PMPI_Init to the start of the run's clock, so MPI_Init's recorded time is at least the
# warm-up; it is skipped when the node has more ranks than cores (the launcher says how
# many), and PAS2P_WARMUP_MS=0 turns it off.
# usage: warmup.sh PAS2P EMPTY_PROGRAM WORKDIR MPIRUN...
set -euo pipefail
pas2p=$1 prog=$2 work=$3
shift 3
fail() { echo "FAIL: $*" >&2; exit 1; }
cores=$(nproc)
init_ns() { # the longest MPI_Init over the ranks of trace $1 (its call_ns)
  local r m=0 v np
  np=$("$pas2p" dump "$1" | awk -F' = ' '$1 == "np" {print $2}')
  for ((r = 0; r < np; r++)); do
    v=$("$pas2p" dump "$1" --rank "$r" | awk '$2 == "MPI_Init" {print $8; exit}')
    ((v > m)) && m=$v
  done
  echo "$m"
}
rm -rf "$work"; mkdir -p "$work"
for name in on off; do
  rm -rf "$work/warm-$name"
  v=1500; [[ $name == off ]] && v=0
  PAS2P_WARMUP_MS=$v "$pas2p" trace -o "$work/warm-$name" -- "$@" -np 2 "$prog" >/dev/null 2>"$work/$name.err" ||
    fail "trace ($name): $(cat "$work/$name.err")"
done
on=$(init_ns "$work/warm-on")
((on >= 1485000000)) || fail "PAS2P_WARMUP_MS=1500: MPI_Init took $on ns, under the warm-up (1 % for the clock's conversion)"
# more ranks than cores: no warm-up however long it is asked to be
rm -rf "$work/warm-over"
PAS2P_WARMUP_MS=20000 "$pas2p" trace -o "$work/warm-over" -- "$@" -np $((cores + 1)) "$prog" \
  >/dev/null 2>"$work/over.err" || fail "trace (np $((cores + 1))): $(cat "$work/over.err")"
over=$(init_ns "$work/warm-over")
((over > 0 && over < 20000000000)) || fail "np $((cores + 1)) on $cores cores: MPI_Init took $over ns (the warm-up was not skipped)"
off=$(init_ns "$work/warm-off")
((off > 0 && off < 1500000000)) || fail "PAS2P_WARMUP_MS=0: MPI_Init took $off ns"
echo "ok: MPI_Init $on ns with a 1.5 s warm-up, $off ns with none, $over ns at np $((cores + 1)) on $cores cores"
