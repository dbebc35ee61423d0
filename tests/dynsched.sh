#!/usr/bin/env bash
# dynsched.sh PAS2P PLATFORM.xml WORKDIR -- LAUNCHER... DYNSCHED N
# MUMPS's dynamic scheduling (tests/mpi/dynsched.c), traced with DYNSCHED_SEED=1 and
# analysed with --locate anchors (the calls between two collectives vary), then predicted:
#   - SEED 0 (what timing changes in MUMPS): the one-off factorization sends fronts 10x the
#     traced run's (a phase timed whole: a departure), and the solves' wildcard probes find
#     their messages with MPI_Iprobe where the traced run used MPI_Probe and the other way
#     round (probes are polls: analysis/probes="polls"): no divergence, the departures
#     said, PET printed;
#   - SEED 2 (another input: the solves' blocks twice the size) still diverges, in the
#     solves, a relevant phase that repeats, naming the receive;
#   - simulated on PLATFORM: the phases it replays for their share of the messages are
#     said apart from the signature's relevant ones, also by `show` of its result file.
set -u
pas2p=$1 plat=$2 w=$3; shift 4
source "$(dirname "$0")/paths.sh"
launcher=("${@:1:$#-2}") prog=("${@:$#-1}")
rm -rf "$w"; mkdir -p "$w"
timeout 120 "$pas2p" trace -o "$w/t" -- "${launcher[@]}" -x DYNSCHED_SEED=1 "${prog[@]}" >"$w/trace.out" 2>"$w/trace.err" ||
  fail "trace failed"
grep -q '^dynsched: ok$' "$w/trace.out" || fail "the program did not say ok"
timeout 120 "$pas2p" analyze "$w/t" --locate anchors -o "$w/sig.xml" >"$w/analyze.out" 2>"$w/analyze.err" ||
  fail "analyze exited $?"
# (the solves' probes are polls, analysis/probes="polls": their calls no longer vary with
# which probe found which message; the factorization's, dealt out at run time, may)
grep -q 'probes="polls"' "$w/sig.xml" || fail "the signature does not say probes are polls"
timeout 120 "$pas2p" predict "$w/sig.xml" -o "$w/pred0" -- "${launcher[@]}" -x DYNSCHED_SEED=0 "${prog[@]}" \
  >"$w/predict.out" 2>"$w/predict.err" || fail "predict (SEED 0) exited $?"
grep -q diverged "$w/predict.out" "$w/predict.err" && fail "predict (SEED 0) diverged"
grep -q '^PET = [0-9.]* s$' "$w/predict.out" || fail "predict (SEED 0) printed no PET"
grep -q '^departures = [1-9]' "$w/predict.out" || fail "predict (SEED 0) did not say its departures"
timeout 120 "$pas2p" predict "$w/sig.xml" -o "$w/pred2" -- "${launcher[@]}" -x DYNSCHED_SEED=2 "${prog[@]}" \
  >"$w/other.out" 2>"$w/other.err" && fail "predict (SEED 2, another input) exited 0"
grep -Eq "diverged from the signature at event [0-9]* \(phase [0-9]*.*(made an MPI_Recv on comm 0 \(tag 3, 0 bytes sent, 24000 received\) that the phase's calls never include|got MPI_Recv peer [0-9]+ tag 3 comm 0 bytes 0\+24000)" "$w/other.err" ||
  fail "predict (SEED 2) did not name the receive it diverged at"
[[ $(grep -c . "$w/other.err") == 1 ]] || fail "predict (SEED 2) said more than one line"
# simulate's phases: those relevant in the signature, and those it adds for their share of
# the messages, said apart (before, "rank 0: 3 relevant phases" where analyze said 2)
"$pas2p" simulate "$w/sig.xml" --platform "$plat" -o "$w/sim" >"$w/simulate.out" 2>"$w/simulate.err" ||
  fail "simulate exited $?"
# (whether it adds any is the traced run's noise: on a loaded machine the final
# MPI_Allreduce held 3 % of the run and was relevant by its time; seen in a CI)
rel=$(sed -n 's/^relevant phases = \([0-9]*\)$/\1/p' "$w/analyze.out")
# (the table printed is the rank the PET comes from: rank 0 or rank 1, as the run went)
n=$(sed -n 's/^rank [0-9]*: \([0-9]*\) relevant phases.*/\1/p' "$w/simulate.out" | head -1)
[[ -n $n ]] || fail "simulate printed no rank's table"
if ((n > rel)); then
  line=$(grep -Eo "^rank [0-9]+: $n relevant phases \($rel as in the signature, [0-9]+ more for their share of the messages or bytes sent, [0-9]+ more to cover the run\)" "$w/simulate.out" | head -1)
  [[ -n $line ]] || fail "simulate does not say which of its $n phases are relevant in the signature ($rel)"
  m=$(sed 's/.*, \([0-9]*\) more for their.*/\1/' <<<"$line") c=$(sed 's/.*, \([0-9]*\) more to cover.*/\1/' <<<"$line")
  ((m + c == n - rel)) || fail "simulate's added phases ($m + $c) are not the $((n - rel)) it times beyond the signature's"
else
  ((n == rel)) || fail "simulate times $n relevant phases, the signature has $rel"
  grep -q "more for their share" "$w/simulate.out" && fail "simulate says it added phases it did not add"
fi
if ((n > rel)); then
  "$pas2p" show "$w/sim/prediction.xml" | grep -q "^rank 0: .* more for their share of the messages" ||
    fail "the prediction file does not keep which phases were added for their messages"
fi
echo "dynsched: SEED 0 predicted with its departures, another input diverged: ok"
