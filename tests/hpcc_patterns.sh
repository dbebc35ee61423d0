#!/usr/bin/env bash
# hpcc_patterns.sh PAS2P PLATFORM.xml WORKDIR -- LAUNCHER... RANDACC ARGS
# HPC Challenge's patterns (tests/mpi/randacc.c) through every path:
#   - traced with RANDACC_SEED=1, analysed: the signature must be anchored (wildcard receives
#     polled by MPI_Testany: their share is of the numbered calls), and the 150 ms round
#     must be a phase of its own, not spread over the light rounds that end at the same
#     MPI_Barrier (a relevant phase of weight 1 that is that MPI_Barrier alone);
#   - predicted 3 times with RANDACC_SEED=0 (another grid order: the MPI_Send/MPI_Recv of
#     the grid's 0x0 rank is gone): none may diverge, and the departures are said; once
#     more from a signature where every phase is relevant (the grid's rounds occur once);
#   - replayed (real MPI), simulated on PLATFORM, simulated from the full trace and exported:
#     each must finish (a cancelled wildcard receive replayed would wait for ever; the full
#     trace's failed polls must not cost SimGrid's 0.1 ms each) and print PET.
set -u
pas2p=$1 plat=$2 w=$3; shift 4
launcher=("${@:1:$#-2}") prog=("${@:$#-1}")
fail() { echo "FAIL: $*"; for f in "$w"/*.out "$w"/*.err; do [[ -s $f ]] && { echo "--- $f"; tail -n 30 "$f"; }; done; exit 1; }
rm -rf "$w"; mkdir -p "$w"
timeout 120 "$pas2p" trace -o "$w/t" -- "${launcher[@]}" -x RANDACC_SEED=1 "${prog[@]}" >"$w/trace.out" 2>"$w/trace.err" ||
  fail "trace failed"
timeout 120 "$pas2p" analyze "$w/t" -o "$w/sig.xml" >"$w/analyze.out" 2>"$w/analyze.err" || fail "analyze failed"
grep -q 'located="anchors"' "$w/sig.xml" || fail "the signature is not anchored"
# the global table (phase weight PhaseET ...) has it as a phase of weight 1, and the rank's
# table (the representative's) says that phase is the round's MPI_Barrier alone: merged into the light rounds, the
# Barrier phase would repeat (weight 40) with a mean 100x its median.  (Not "no repeating
# phase has an occurrence of 0.1 s": on a loaded machine one of the 1 ms Alltoall steps
# was preempted for 102 ms.)
awk '/^# global phases/ { on = 1; next } on && /^ *[0-9]+ +[0-9]+ / { if ($2 == 1 && $3 > 0.1) heavy = 1 }
     /^$/ { on = 0 } END { exit !heavy }' "$w/analyze.out" || fail "no phase of weight 1 holds the 150 ms round"
awk '/^# rank [0-9]+ phases/ { on = 1; next } on && /^ *[0-9]+ +[0-9]+ / {
       if ($4 == 1 && $5 > 0.1 && $NF == "Barrier" && $(NF - 1) == "yes") round = 1 }
     /^$/ { on = 0 } END { exit !round }' "$w/analyze.out" || fail "the 150 ms round is merged into the light rounds"
for k in 1 2 3; do
  rm -rf "$w/pred"
  # --measure-end: the run goes through the grid's rounds however the trace's timing came
  # out (on a loaded machine the first phase held 60 % of the traced run, every later phase
  # was "late", estimated, and the stop came before the grid: no departure to say)
  timeout 120 "$pas2p" predict "$w/sig.xml" --measure-end -o "$w/pred" -- "${launcher[@]}" -x RANDACC_SEED=0 "${prog[@]}" \
    >"$w/predict.out" 2>"$w/predict.err" || fail "predict $k exited $?"
  grep -q diverged "$w/predict.out" "$w/predict.err" && fail "predict $k diverged"
  grep -q '^PET = ' "$w/predict.out" || fail "predict $k printed no PET"
  grep -q '^departures = [1-9]' "$w/predict.out" || fail "predict $k did not say the grid's departures"
done
# every phase relevant: the grid's rounds (one-off, or repeating where a round's copy of
# the world keeps its id) are timed, and their departures are still tolerated: the 0x0
# rank's message there or not is the skeleton's calls in another number (whether a round
# of a few ms is relevant is the traced run's noise: a 4 ms preemption in its MPI_Barrier
# is 1 % of this run; seen in a CI)
timeout 120 "$pas2p" analyze "$w/t" --relevance 0.000001 -o "$w/sig_all.xml" >"$w/analyze_all.out" 2>&1 ||
  fail "analyze --relevance 0.000001 failed"
grep -Eq ' yes Comm_free (Recv|Send) Barrier' "$w/analyze_all.out" || fail "no relevant grid round to depart from"
rm -rf "$w/pred"
timeout 120 "$pas2p" predict "$w/sig_all.xml" --measure-end -o "$w/pred" -- "${launcher[@]}" -x RANDACC_SEED=0 "${prog[@]}" \
  >"$w/predict.out" 2>"$w/predict.err" || fail "predict (every phase relevant) exited $?"
grep -q '^departures = [1-9]' "$w/predict.out" || fail "predict (every phase relevant) did not say the departures"
timeout 120 "$pas2p" replay "$w/sig.xml" -o "$w/rep" -- "${launcher[@]}" >"$w/replay.out" 2>"$w/replay.err" ||
  fail "replay exited $?"
grep -q '^PET = ' "$w/replay.out" || fail "replay printed no PET"
timeout 120 "$pas2p" simulate "$w/sig.xml" --platform "$plat" -o "$w/sim" >"$w/simulate.out" 2>"$w/simulate.err" ||
  fail "simulate exited $?"
grep -q '^PET = ' "$w/simulate.out" || fail "simulate printed no PET"
timeout 120 "$pas2p" simulate --full-trace "$w/t" --platform "$plat" -o "$w/full" >"$w/full.out" 2>"$w/full.err" ||
  fail "simulate --full-trace exited $?"
# its simulated time stays near the run's (one failed poll at 0.1 ms each made it minutes)
aet=$(sed -n 's/^AET = \([0-9.]*\) s$/\1/p' "$w/trace.out")
set_s=$(sed -n 's/^PET = \([0-9.]*\) s$/\1/p' "$w/full.out")
awk -v a="$aet" -v s="$set_s" 'BEGIN { exit !(s > 0 && s < 5 * a) }' ||
  fail "the full trace simulates $set_s s for a run of $aet s"
# and it says what it did not replay: the failed polls, the cancelled receives
grep -q 'events are not replayed: [1-9][0-9]* failed polls' "$w/full.out" "$w/full.err" ||
  fail "simulate --full-trace did not say which events it left out"
timeout 60 "$pas2p" replay "$w/sig.xml" --export "$w/exp" >"$w/export.out" 2>"$w/export.err" || fail "export exited $?"
echo "hpcc patterns: trace, analyze, 3 predictions, replay, simulate, full trace, export: ok"
