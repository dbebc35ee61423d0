#!/usr/bin/env bash
# predict_stop.sh MODE PAS2P WORKDIR -- LAUNCH...   predict's stop without an application
# collective (signature/sigrun.c, "the guaranteed stop"):
#   p2p      LAUNCH runs a point-to-point-only loop: the run must stop early by the
#            guaranteed stop, exit 0, print no launcher banner, and leave no process behind
#   blocked  LAUNCH is tests/mpi/stall: the prediction runs with STALL=10, so rank 1 is
#            blocked in a receive from its 10th message to the end of rank 0's loop: the run
#            must still stop early (rank 0 never prints "stall: done").  10, not 4: rank 1
#            may await up to 7 values after its warm-up (its first 3 disagreeing on a loaded
#            machine: the steady-state rule), and with 4 it blocked before it had them and
#            the run went to its end (2 of 3 suites under ctest -j2 once the runtime's
#            warm-up spun both cores at every job's start)
#   nodir    ranks other than 0 get a PAS2P_PREDICT_DIR of their own (no shared directory):
#            every times file must still reach the prediction directory, through rank 0
#   poll     LAUNCH is tests/mpi/poll, whose rank 1 polls MPI_Test a different number of
#            times in every run: three predictions in a row, none may diverge
#   ep       LAUNCH is tests/mpi/ep: nothing repeats; predict times the one relevant phase,
#            runs to MPI_Finalize, prints PET (not below half the SET) and says why
#   epn      LAUNCH is tests/mpi/ep MS N (NAS EP's shape: the computation, then N
#            MPI_Allreduce in a row): the computation is a one-off phase of its own, timed
#            (PET not below half the SET); the stop may come in the cheap reductions
#   some     LAUNCH is tests/mpi/somewait, whose completions (MPI_Waitsome, MPI_Testsome,
#            MPI_Waitany) come in another order and number of calls in every run: its
#            signature has few phases (a run of Waitsome/Testsome calls is one call), five
#            predictions in a row must none diverge, and the same program run with a
#            VARIANT argument that changes its calls (another call, another communicator,
#            another peer) must be caught as a divergence, each within its first iteration
#   farm     LAUNCH is the task farm (MPI_ANY_SOURCE: which worker gets which task changes
#            from run to run): the signature is anchored, and five predictions in a row
#            must none diverge
#   late     LAUNCH is tests/mpi/sweep with 3 late stages (~64 % of the run together, each
#            under 25 %): they are awaited and timed, none estimated
#   tail     LAUNCH is tests/mpi/sweep with 1 short late stage (~13 %): a wind-down, estimated
#            from the rank's ratio, and the run stops early before it
#   size     LAUNCH is tests/mpi/sizes: predicted with SETUP_BYTES=5000 (the trace had 1000),
#            its one-off set-up message has a size the base never saw, in a phase that is not
#            relevant (analysed with --relevance 0.2, so that it never is): not a divergence, a departure said (exit 0, stopped early); with
#            LOOP_BYTES=800 the relevant loop's messages change size: still a divergence;
#            a 2-iteration run ends early, said as MPI_Finalize before the traced run's end
#   drift    LAUNCH is tests/mpi/sizes, traced with LOOP_BYTES=4000 LOOP_VARY=1 (4000-4400
#            bytes): predicted with LOOP_BYTES=8000 the relevant loop's messages are twice
#            the base's (data that moved between runs, dolfinx's partitioning): a departure
#            said, exit 0, stopped early; with LOOP_BYTES=40000 (10x: another input) a
#            divergence, and so without LOOP_VARY (a size that was the same in every
#            occurrence keeps it)
#   steady   LAUNCH is tests/mpi/sizes: predicted with JITTER_US=20000 (every other
#            iteration 21 ms instead of 1 ms, more than a preemption adds; the trace had
#            none): the loop's first 3 timed values disagree, and the stop awaits more
#            of them (up to 7), as it does not without the jitter when they agree (3)
#   dealt    LAUNCH is tests/mpi/sizes: predicted with SETUP_MSGS=3 and 0 (the trace had
#            1), its set-up makes other calls than the base run's (work dealt out at run
#            time); from a signature analysed with --locate anchors: a departure said (exit
#            0) either way; from the default one (located by ordinals), SETUP_MSGS=0 shifts
#            every ordinal after it into the relevant loop: a divergence that names
#            --locate anchors (SETUP_MSGS=3 happens to be absorbed there: the set-up phase
#            keeps its number of calls, the loop's first iteration taken as set-up)
set -u
mode=$1 pas2p=$2 w=$3; shift 4
fail() { echo "FAIL ($mode): $*"; echo "--- stdout"; cat "$w/out" 2>/dev/null; echo "--- stderr"; cat "$w/err" 2>/dev/null; exit 1; }
rm -rf "$w"; mkdir -p "$w"
tlaunch=("$@")
[[ $mode == drift ]] && tlaunch=("$1" -x LOOP_BYTES=4000 -x LOOP_VARY=1 "${@:2}")
"$pas2p" trace -o "$w/t" -- "${tlaunch[@]}" >/dev/null 2>"$w/err" || fail "trace failed"
# size: the set-up phase must not be relevant whatever the start-up costs on a loaded
# machine (the ranks leave MPI_Init tens of ms apart under ctest -j2: 3 % of the run), and
# the loop (> 90 % of it) must be
aargs=(); [[ $mode == size ]] && aargs=(--relevance 0.2)
[[ $mode == dealt ]] && aargs=(--locate anchors)
# late, tail: phases cut by the calls alone (a loaded machine split the first stage's
# ping-pongs into time variants, one of them slow)
[[ $mode == late || $mode == tail ]] && aargs=(--compute-similarity 0)
"$pas2p" analyze "$w/t" -o "$w/sig.xml" "${aargs[@]}" >"$w/analyze" 2>"$w/err" || fail "analyze failed"
# tail: a base traced on a loaded machine may have the late stage's 5 iterations carry a
# quarter of a rank's time (ASan under ctest -j2: 35 % on rank 0, its first one 13 ms for
# 1 ms); the rule then rightly awaits it, not a wind-down any more: skipped, said
if [[ $mode == tail ]]; then
  share=$(awk -F'"' '/<rank id=/ { for (i = 1; i < NF; i++) if ($i ~ /elapsed_s=$/) e = $(i + 1) }
    /<phase id=/ { w = t = 0; for (i = 1; i < NF; i++) { if ($i ~ / weight=$/) w = $(i + 1)
                                                       if ($i ~ / time_mean_s=$/) t = $(i + 1) }
                   if (w == 5 && e > 0 && w * t / e > m) m = w * t / e }
    END { printf "%.3f", m }' "$w/sig.xml")
  awk -v m="$share" 'BEGIN { exit !(m >= 0.25) }' &&
    { echo "SKIPPED: the base's late stage carries ${share} of a rank's time (a loaded machine)"; exit 77; }
fi
prog=                             # the program: the first executable file after the launcher
for a in "${@:2}"; do [[ -z $prog && -x $a && -f $a ]] && prog=$a; done
launch=("$@")
case $mode in
  blocked) launch=("$1" -x STALL=10 "${@:2}") ;;
  size) launch=("$1" -x SETUP_BYTES=5000 "${@:2}") ;;
  drift) launch=("$1" -x LOOP_BYTES=8000 -x LOOP_VARY=1 "${@:2}") ;;
  steady) launch=("$1" -x JITTER_US=20000 "${@:2}") ;;
  dealt)
    launch=("$1" -x SETUP_MSGS=3 "${@:2}")
    grep -q 'located="anchors"' "$w/sig.xml" || fail "--locate anchors: the signature is not anchored"
    grep -q '^located = anchors (--locate anchors' "$w/analyze" || fail "analyze does not say how occurrences are located" ;;
  nodir)
    cat >"$w/wrap.sh" <<'W'
#!/bin/sh
# a rank other than 0 writes nowhere predict can see: no shared filesystem
r=${OMPI_COMM_WORLD_RANK:-0}
if [ "$r" != 0 ]; then PAS2P_PREDICT_DIR=$WRAP_DIR/rank$r; export PAS2P_PREDICT_DIR; mkdir -p "$PAS2P_PREDICT_DIR"; fi
exec "$@"
W
    chmod +x "$w/wrap.sh"
    # the launcher's options stay in front; the wrapper goes before the program
    n=0; for a in "$@"; do [[ $a == "$prog" ]] && break; n=$((n + 1)); done
    launch=("${@:1:n}" -x WRAP_DIR="$w/elsewhere" "$w/wrap.sh" "${@:n+1}") ;;
esac
runs=1; [[ $mode == poll ]] && runs=3; [[ $mode == farm || $mode == some ]] && runs=5
if [[ $mode == some ]]; then
  grep -q 'completion_runs="folded"' "$w/sig.xml" || fail "the signature does not fold completion runs"
  nph=$(sed -n 's/^phases = //p' "$w/analyze")
  [[ -n $nph ]] && ((nph <= 10)) || fail "the signature has $nph global phases (the varying completions fragment it)"
fi
if [[ $mode == farm ]]; then
  grep -q 'located="anchors"' "$w/sig.xml" || fail "the farm's signature is not anchored"
  grep -q 'variable="yes"' "$w/sig.xml" || fail "no variable phase in the farm's signature"
fi
for ((k = 1; k <= runs; k++)); do
  rm -rf "$w/pred"
  timeout 60 "$pas2p" predict "$w/sig.xml" -o "$w/pred" -- "${launch[@]}" >"$w/out" 2>"$w/err"
  rc=$?
  (( rc == 0 )) || break
done
sleep 0.5
# a process left behind: one that still has this prediction's signature in its environment
sig=$(realpath "$w/sig.xml") left=
for e in /proc/[0-9]*/environ; do
  tr '\0' '\n' 2>/dev/null <"$e" | grep -qxF "PAS2P_SIGNATURE=$sig" && left+=" ${e//[^0-9]/}"
done
[[ -z $left ]] || { ps -o pid,args -p $left; fail "processes left behind:$left"; }
(( rc == 0 )) || fail "predict exited $rc"
grep -q "MPI_ABORT\|errorcode\|ORTE_ERROR" "$w/err" && fail "the launcher's abort banner reached the user"
grep -q "^PET = " "$w/out" || fail "no PET"
case $mode in
  farm) grep -q "diverged" "$w/out" "$w/err" && fail "a prediction diverged" ;;
  size)
    grep -q "diverged" "$w/out" "$w/err" && fail "the set-up message's size was taken as a divergence"
    grep -q "^stop = early" "$w/out" || fail "not stopped early"
    grep -q "^departures = 2$" "$w/out" || fail "the departures (rank 0's send, rank 1's receive) were not said"
    grep -q "^note: 2 occurrence(s) of phases that are not relevant or occur once, or after the rank had measured all it must, made other calls or sizes.*bytes 5000" "$w/out" ||
      fail "the departure's note does not name the size" ;;
  drift)
    grep -q "diverged" "$w/out" "$w/err" && fail "a relevant loop's sizes at twice the base's were taken as a divergence"
    grep -q "^stop = early" "$w/out" || fail "not stopped early"
    grep -q "^departures = [1-9]" "$w/out" || fail "the departure was not said"
    grep -q "^note: .*varying sizes within 4x of the base's.*got MPI_Sendrecv .*bytes [89][0-9][0-9][0-9]+[89][0-9][0-9][0-9] (sent+received)$" "$w/out" ||
      fail "the departure's note does not name the size" ;;
  late)
    # (a one-off at the end, the last ping-pong before MPI_Finalize, may be estimated)
    grep -Eq "^ +[0-9]+ +([2-9]|[1-9][0-9]+) .*not measured" "$w/out" &&
      fail "a late stage was estimated, not timed (the late ones are ~64 % of the run)"
    [[ $(grep -cE "^ +[0-9]+ +[0-9]+ .* [0-9]+ +[-+][0-9]+/[-+][0-9]+%" "$w/out") -ge 4 ]] ||
      fail "the first stage and the three late ones are not all timed"
    # stderr: the program's "stage s: " lines, the last one cut by the stop (the abort
    # banner that follows it must be dropped all the same), nothing else
    grep -vq "^stage [0-9]: \(ok\)\?$" "$w/err" && fail "stderr has more than the program's stage lines" ;;
  tail)
    grep -q "^stop = early" "$w/out" || fail "not stopped early (the one late stage, ~13 % of the run, was awaited)"
    grep -Eq "^ +[0-9]+ +[2-5] .*not measured" "$w/out" || fail "the late stage (5 occurrences) is not estimated" ;;
  some)
    grep -q "diverged" "$w/out" "$w/err" && fail "a prediction diverged"
    grep -q "^stop = early" "$w/out" || fail "not stopped early"
    [[ -s $w/err ]] && fail "stderr is not empty" ;;
  p2p|blocked|nodir|poll)
    grep -q "^stop = early (guaranteed" "$w/out" || fail "not stopped by the guaranteed stop"
    [[ -s $w/err ]] && fail "stderr is not empty" ;;
  ep|epn)
    if [[ $mode == ep ]]; then
      grep -q "^stop = none: ran to MPI_Finalize" "$w/out" || fail "expected a run to the end"
      grep -Eq "^note: rank [0-9]+ ran to MPI_Finalize" "$w/out" || fail "no note saying why SET ~ AET"
    fi
    grep -Eq "^ +[0-9]+ +1 .*" "$w/out" || fail "the one-off phase is not in the table"
    pet=$(sed -n 's/^PET = \([0-9.]*\) s$/\1/p' "$w/out"); set_=$(sed -n 's/^SET = \([0-9.]*\) s$/\1/p' "$w/out")
    awk -v p="$pet" -v s="$set_" 'BEGIN { exit !(p > 0.5 * s) }' || fail "PET $pet s against SET $set_ s" ;;
esac
if [[ $mode == blocked ]]; then
  grep -q "^stall: done" "$w/out" && fail "the run went to its end: the stop waited for the blocked rank"
fi
if [[ $mode == nodir ]]; then
  np=$(grep -c . <(ls "$w/pred"/rank-*.times))
  [[ $np -ge 2 ]] || fail "only $np times files reached the prediction directory"
  [[ -z $(find "$w/elsewhere" -name '*.times' 2>/dev/null) ]] || fail "a rank other than 0 wrote its own times file"
fi
echo "ok: predict $mode (exit $rc, $(grep '^stop' "$w/out"))"
if [[ $mode == drift ]]; then # 10x the base's sizes in the timed loop: another input
  rm -rf "$w/pred"
  timeout 60 "$pas2p" predict "$w/sig.xml" -o "$w/pred" -- "$1" -x LOOP_BYTES=40000 -x LOOP_VARY=1 "${@:2}" >"$w/out" 2>"$w/err"
  rc=$?
  ((rc != 0)) || fail "LOOP_BYTES=40000: predict exited 0 (the loop's sizes are 10x the signature's)"
  grep -q "diverged from the signature.*MPI_Sendrecv.*bytes 40000+40000" "$w/out" "$w/err" || fail "LOOP_BYTES=40000: no divergence reported"
  # a size that was the same in every occurrence of the base keeps it: traced without
  # LOOP_VARY, twice the size diverges
  rm -rf "$w/t" "$w/pred"
  "$pas2p" trace -o "$w/t" -- "$1" -x LOOP_BYTES=4000 "${@:2}" >/dev/null 2>"$w/err" || fail "trace (fixed sizes) failed"
  "$pas2p" analyze "$w/t" -o "$w/sig.xml" >"$w/analyze" 2>"$w/err" || fail "analyze (fixed sizes) failed"
  timeout 60 "$pas2p" predict "$w/sig.xml" -o "$w/pred" -- "$1" -x LOOP_BYTES=8000 "${@:2}" >"$w/out" 2>"$w/err"
  rc=$?
  ((rc != 0)) || fail "fixed sizes, LOOP_BYTES=8000: predict exited 0 (a size the base never varied doubled)"
  grep -q "diverged from the signature.*MPI_Sendrecv.*bytes 8000+8000" "$w/out" "$w/err" || fail "fixed sizes, LOOP_BYTES=8000: no divergence reported"
fi
if [[ $mode == size ]]; then # a size the base never saw in the timed loop: a divergence
  rm -rf "$w/pred"
  timeout 60 "$pas2p" predict "$w/sig.xml" -o "$w/pred" -- "$1" -x LOOP_BYTES=800 "${@:2}" >"$w/out" 2>"$w/err"
  rc=$?
  ((rc != 0)) || fail "LOOP_BYTES=800: predict exited 0 (the loop's sizes differ from the signature's)"
  grep -q "diverged from the signature" "$w/out" "$w/err" || fail "LOOP_BYTES=800: no divergence reported"
  # other arguments (2 iterations): refused, quoting the signature's program and
  # arguments, not its whole launch command (mpirun and its options)
  rm -rf "$w/pred"
  timeout 60 "$pas2p" predict "$w/sig.xml" -o "$w/pred" -- "${@:1:$#-1}" 2 >"$w/out" 2>"$w/err"
  rc=$?
  ((rc != 0)) || fail "other arguments: predict exited 0"
  prog=$(basename "${@: -2:1}") n=${!#}
  grep -q "are not the signature's ('[^' ]*$prog $n'): another input" "$w/out" "$w/err" ||
    fail "other arguments: the refusal does not quote the signature's '$prog $n'"
  # a shorter run (2 iterations, arguments not checked): it ends early, and says so
  rm -rf "$w/pred"
  timeout 60 "$pas2p" predict "$w/sig.xml" -o "$w/pred" --ignore-args -- "${@:1:$#-1}" 2 >"$w/out" 2>"$w/err"
  rc=$?
  ((rc != 0)) || fail "a 2-iteration run: predict exited 0"
  grep -q "the application called MPI_Finalize at event [0-9]* of the [0-9]* the traced run made" "$w/out" "$w/err" ||
    fail "a 2-iteration run: the early end is not said as such"
fi
if [[ $mode == steady ]]; then # the loop: the relevant phase of the most weight, in the
  # rank table predict prints (its values and range: "-23/+57%" -> the larger, in %)
  vals() { awk '/^rank [0-9]+:/ { on = !seen; seen = 1; next }
                on && $1 ~ /^[0-9]+$/ && $2 > w { w = $2; v = $7; r = $8; gsub(/[-+%]/, " ", r)
                  split(r, x, "/"); s = x[1] + 0 > x[2] + 0 ? x[1] + 0 : x[2] + 0 }
                END { print v + 0, s + 0 }' "$1"; }
  read -r n _ < <(vals "$w/out")
  ((n >= 5)) || fail "the jittering loop was timed on $n values (5 or more expected)"
  rm -rf "$w/pred"
  timeout 60 "$pas2p" predict "$w/sig.xml" -o "$w/pred" -- "${@}" >"$w/out" 2>"$w/err" ||
    fail "without jitter: predict exited $?"
  # values that agree (within 20 % of their median) are not awaited longer; on a loaded
  # machine they may not agree, and then they rightly are; so are they when the base
  # occurrences they pair with were no typical ones (a trace made beside other jobs: the
  # note pet.c prints says so; the ASan CI's trace had its loop's first ones at 1.78x)
  read -r n spread < <(vals "$w/out")
  untypical=$(grep -c "^note: phase(s) .*: the base run's occurrences they were paired with ran" "$w/out")
  ((spread > 20 || n <= 4 || untypical > 0)) ||
    fail "the steady loop was timed on $n values within $spread % (3 expected)"
fi
if [[ $mode == dealt ]]; then
  grep -q "^departures = [1-9]" "$w/out" || fail "the set-up's departure was not said"
  launch=("$1" -x SETUP_MSGS=0 "${@:2}")
  rm -rf "$w/pred"
  timeout 60 "$pas2p" predict "$w/sig.xml" -o "$w/pred" -- "${launch[@]}" >"$w/out" 2>"$w/err" ||
    fail "located by anchors, SETUP_MSGS=0: predict exited $?"
  grep -q "^departures = [1-9]" "$w/out" || fail "SETUP_MSGS=0: the set-up's departure was not said"
  # (--relevance 0.2: the set-up phase never relevant, whatever the start-up costs under
  # load, so that its departure is tolerated and said before the divergence it causes)
  "$pas2p" analyze "$w/t" --relevance 0.2 -o "$w/sig_ord.xml" >"$w/analyze" 2>"$w/err" ||
    fail "analyze (ordinals) failed"
  grep -q '^located = ordinals' "$w/analyze" || fail "the default signature is not located by ordinals"
  rm -rf "$w/pred"
  timeout 60 "$pas2p" predict "$w/sig_ord.xml" -o "$w/pred" -- "${launch[@]}" >"$w/out" 2>"$w/err"
  rc=$?
  ((rc != 0)) || fail "located by ordinals, SETUP_MSGS=0: predict exited 0"
  grep -q "diverged from the signature.*after [0-9]* tolerated departure.*analyze --locate anchors" \
    "$w/out" "$w/err" || fail "located by ordinals: the divergence does not say the departure and --locate anchors"
fi
if [[ $mode == some ]]; then # a real departure is still one: another call, communicator, peer
  for v in 1 2 3; do
    rm -rf "$w/pred"
    timeout 60 "$pas2p" predict "$w/sig.xml" -o "$w/pred" --ignore-args -- "${launch[@]}" "$v" >"$w/out" 2>"$w/err"
    rc=$?
    ((rc != 0)) || fail "variant $v: predict exited 0 (its calls differ from the signature's)"
    grep -Eq "diverged from the signature at event ([0-9]|[1-4][0-9]) " "$w/out" "$w/err" ||
      fail "variant $v: no divergence reported within the first iteration"
  done
fi
