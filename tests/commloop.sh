#!/usr/bin/env bash
# commloop.sh PAS2P PLATFORM.xml WORKDIR -- LAUNCHER... COMMLOOP N[s]
# Communicators made and freed inside the main loop (tests/mpi/commloop.c) through every
# path.  Without "s": a copy of MPI_COMM_WORLD and a Cartesian ring over all ranks, freed
# at the end of each iteration, keep one id each (tracer/FORMAT.md, "Communicator ids"),
# so the loop is a phase that repeats and predict stops early (before, every iteration
# had new ids: the whole loop was one phase of weight 1 and predict ran to the end).
# With "n": the copy is copied again and both freed: each keeps one id.  With "s": the
# copy makes a communicator itself (a split), so it does not give its id back; each
# iteration's copy has its own id, and every path still takes the program.
set -u
source "$(dirname "$0")/paths.sh"
pas2p=$1 plat=$2 w=$3; shift 4
traced_app commloop "$@"
arg=${!#}; n=${arg%[sn]}
"$pas2p" dump "$w/t" --rank 1 >"$w/dump.out" || fail "dump exited $?"
copies=$(awk '$2 == "MPI_Allreduce" && $5 != "WORLD" { print $5 }' "$w/dump.out" | sort -u | wc -l)
parents=$(awk '$2 == "MPI_Comm_split" { print $5 }' "$w/dump.out" | sort -u | wc -l)
if [[ $arg == *s ]]; then
  [[ $parents == "$n" ]] || fail "the $n copies that made a communicator have $parents ids, not $n"
else
  want=1; [[ $arg == *n ]] && want=2 # (and the copy of each copy)
  [[ $copies == "$want" ]] || fail "the $n copies of MPI_COMM_WORLD freed in the loop have $copies ids, not $want"
  rings=$(awk '$2 == "MPI_Sendrecv" { print $5 }' "$w/dump.out" | sort -u | wc -l)
  [[ $rings == 1 ]] || fail "the $n Cartesian rings freed in the loop have $rings ids, not one"
  # the loop is a phase that repeats (before, one occurrence of weight 1 for the whole
  # loop); on a loaded machine a few iterations slow enough are a time variant of their own
  "$pas2p" show "$w/sig.xml" >"$w/show.out" || fail "show exited $?"
  awk -v n="$n" '/^# global phases/ { g = 1; next } g && /^#/ { g = 0 } g && $1 ~ /^[0-9]+$/ && $2 >= n / 2 { ok = 1 } END { exit !ok }' "$w/show.out" ||
    fail "no global phase of weight >= $((n / 2))"
  # every occurrence is one of a phase's: the count analyze prints is the weights' sum
  # (before, the one-off slices joined at the run's ends were still counted apart)
  occ=$(sed -n 's/^occurrences = \([0-9]*\).*/\1/p' "$w/analyze.out")
  sum=$(awk '/^# global phases/ { g = 1; next } g && /^#/ { g = 0 } g && $1 ~ /^[0-9]+$/ { s += $2 } END { print s }' "$w/show.out")
  [[ $occ == "$sum" ]] || fail "analyze says $occ occurrences, its phases' weights sum to $sum"
fi
every_path "$pas2p" "$plat" "$w" -- "$@"
if [[ $arg != *s ]]; then
  grep -q "^stop = early" "$w/predict.out" || fail "predict did not stop early"
fi
echo "commloop $arg: trace, analyze, simulate, replay, predict: ok"
