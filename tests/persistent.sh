#!/usr/bin/env bash
# persistent.sh PAS2P PLATFORM.xml WORKDIR -- LAUNCHER... PERSIST N[r]
# Persistent requests (tests/mpi/persist.c) through every path:
#   - traced and analysed: the signature's MPI_Startall and MPI_Start events name the
#     requests they start (`starts`: kind, peer, tag, bytes, communicator), the wildcard
#     receive's source as -2;
#   - simulated from the signature within 25 % of the full trace's simulation, replayed,
#     exported, predicted: each prints PET (before, simulate and replay refused the
#     signature: "persistent requests have no action in a signature").
set -u
source "$(dirname "$0")/paths.sh"
pas2p=$1 plat=$2 w=$3; shift 4
traced_app persist "$@"
grep -Eq '<event call="MPI_Startall" [^>]* starts="Send_init:1:1:4096:0 Send_init:1:2:4096:0 Recv_init:1:1:4096:0 Recv_init:1:2:4096:0"' "$w/sig.xml" ||
  fail "rank 0's MPI_Startall does not name its four requests"
grep -Eq '<event call="MPI_Start" [^>]* starts="Recv_init:-2:3:8:0"' "$w/sig.xml" ||
  fail "the MPI_Start of the wildcard receive does not name it"
# each message counted once in the profile: per iteration two 4 KiB ring sends, the 8-byte
# one and the Allreduce's 8; the final check's 4 (before, a persistent send counted at its
# init and again at its completion)
n=${!#}
want=$(( ${n%r} * 8208 + 4 ))
"$pas2p" dump "$w/t" >"$w/dump.out" || fail "dump exited $?"
awk -v w="$want" '$1 ~ /^[0-9]+$/ && NF == 8 && ($6 != w || $7 != w) { bad = 1 } END { exit bad }' "$w/dump.out" ||
  fail "dump's bytes_sent/bytes_recv are not $want per rank: $(grep -E '^ +[0-9]+ ' "$w/dump.out" | head -2)"
every_path "$pas2p" "$plat" "$w" -- "$@"
timeout 60 "$pas2p" replay "$w/sig.xml" --export "$w/exp" >"$w/export.out" 2>"$w/export.err" || fail "export exited $?"
grep -q '^0 isend 1 1 4096$' "$w/exp"/phase-*/rank-00000.txt || fail "the export has no isend for the started send"
sig=$(sed -n 's/^PET = \([0-9.]*\) s$/\1/p' "$w/simulate.out")
full=$(sed -n 's/^PET = \([0-9.]*\) s$/\1/p' "$w/full.out")
# (within 25 %: a loaded machine's jitter, which the full trace replays and the signature's
# mean does not, made -11.5 %)
awk -v a="$sig" -v b="$full" 'BEGIN { exit !(a > 0.75 * b && a < 1.25 * b) }' ||
  fail "the signature simulates $sig s, the full trace $full s"
echo "persistent: trace, analyze, simulate ($sig s; full trace $full s), replay, export, predict: ok"
