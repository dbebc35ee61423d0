#!/usr/bin/env bash
# intercomm.sh PAS2P PLATFORM.xml WORKDIR -- LAUNCHER... INTERCOMM N
# An intercommunicator (tests/mpi/intercomm.c) through every path:
#   - traced: MPI_Intercomm_create gives one id on both halves and defines both halves as
#     members; a send over it names the other half's rank as a world rank (rank 0's
#     partner is world rank 1); a broadcast over it names its root on every rank;
#     MPI_Intercomm_merge and MPI_Comm_idup define their communicators;
#   - analysed with every message received; simulated from the signature and from the full
#     trace, replayed and predicted: each prints PET.
set -u
source "$(dirname "$0")/paths.sh"
pas2p=$1 plat=$2 w=$3; shift 4
np=2; prev=; for a in "$@"; do [[ $prev == -np || $prev == -n ]] && np=$a; prev=$a; done
members=$(seq -s, 0 $((np - 1)))
traced_app intercomm "$@"
"$pas2p" dump "$w/t" --rank 0 >"$w/dump0.out" 2>&1 || fail "dump rank 0"
"$pas2p" dump "$w/t" --rank 1 >"$w/dump1.out" 2>&1 || fail "dump rank 1"
ids=$(sed -n "s/.* MPI_Intercomm_create .* new=\([0-9a-f]*\) size=$np members=$members\$/\1/p" "$w/dump0.out" "$w/dump1.out" | sort -u)
[[ $(wc -w <<<"$ids") == 1 ]] || fail "MPI_Intercomm_create: ids '$ids' (one id on both halves, members $members expected)"
grep -Eq "^[0-9]+ MPI_Send 1 1 $ids 8 " "$w/dump0.out" || fail "rank 0's send over the intercommunicator does not name world rank 1"
grep -Eq "^0*1 MPI_Comm_idup - - WORLD 0 .* new=[0-9a-f]+ size=$np members=$members$" "$w/dump0.out" ||
  fail "MPI_Comm_idup does not define its communicator"
grep -Eq "^[0-9]+ MPI_Intercomm_merge - - $ids 0 .* new=[0-9a-f]+ size=$np members=[0-9,]+$" "$w/dump0.out" ||
  fail "MPI_Intercomm_merge is not recorded on the intercommunicator with its new communicator"
grep -q never "$w/analyze.out" "$w/analyze.err" && fail "analyze: a message sent and never received"
# the broadcast from the even half's first rank: world rank 0 named as its root on every
# rank, also on the even half's others, which pass MPI_PROC_NULL
for r in $(seq 0 $((np - 1))); do
  "$pas2p" dump "$w/t" --rank "$r" | grep -Eq "^[0-9]+ MPI_Bcast 0 - $ids " ||
    fail "rank $r's MPI_Bcast on the intercommunicator does not name world rank 0 as its root"
done
every_path "$pas2p" "$plat" "$w" -- "$@"
echo "intercomm: trace, analyze, simulate, full trace, replay, predict: ok"
