#!/usr/bin/env bash
# Open MPI 4's false "exiting improperly": now and then its launcher reports a rank that
# ended normally as "process rank 1 with PID 0 on node X exiting improperly" and exits 1
# (open-mpi/ompi#7833; it failed this project's CI in a replay whose ranks had all written
# their times).  A stand-in launcher named mpirun runs the real one, then prints that
# banner and exits 1 (NOSYNC_PID: the PID it names, 0 by default; NOSYNC_RUN=0: it runs
# nothing).  trace (one run and --runs 2), analyze --mpi, replay and predict keep the work
# when every rank wrote its results (analyze --mpi: process 0's status), say why and exit 0;
# with a real PID in the banner, or with no rank's results, they fail as before.  predict
# runs ENDAPP (tests/mpi/endheavy.c: its heavy end phase, once, is timed, so the run goes to
# MPI_Finalize whatever the trace: stencil2d's short run, traced on a busy machine, had
# phases predict stopped early after, and the launcher's banner never came)
# The stand-in also crashes (NOSYNC_CRASH=1: signal 11) after the run, as Open MPI 4.1's
# mpirun now and then does in its own finalize: trace, replay and predict keep whole results
# then, and say so.
# usage: no_sync.sh PAS2P WORKDIR APP ENDAPP -- MPIRUN...   (APP: the bundled stencil2d)
set -uo pipefail
pas2p=$1 work=$2 app=$3 endapp=$4
shift 5
fail() { echo "FAIL: $*" >&2; exit 1; }
d=$work/no-sync
rm -rf "$d"; mkdir -p "$d/bin"
{
  echo '#!/usr/bin/env bash'
  printf 'if [[ ${NOSYNC_RUN:-1} == 1 ]]; then'
  printf ' %q' "$@"; echo ' "$@" || exit $?; fi'
  cat <<'EOF'
if [[ ${NOSYNC_CRASH:-0} == 1 ]]; then kill -SEGV $$; fi
cat >&2 <<BANNER
--------------------------------------------------------------------------
mpirun has exited due to process rank 1 with PID ${NOSYNC_PID:-0} on
node vm exiting improperly. There are three reasons this could occur:

1. this process did not call "init" before exiting, but others in
the job did.
--------------------------------------------------------------------------
BANNER
exit 1
EOF
} >"$d/bin/mpirun"
chmod +x "$d/bin/mpirun"
run=("$d/bin/mpirun" -np 2 "$app" 64 20)
erun=("$d/bin/mpirun" -np 2 "$endapp" 4 200)

"$pas2p" trace -o "$d/t" -- "${run[@]}" >"$d/trace.log" 2>&1 || fail "trace exited $?: $(tail -n 5 "$d/trace.log")"
grep -q 'with PID 0' "$d/trace.log" || fail "the launcher's banner is not shown: $(cat "$d/trace.log")"
grep -q 'note: .*open-mpi/ompi#7833.*kept' "$d/trace.log" || fail "trace did not say why it kept the trace"
"$pas2p" trace --runs 2 -o "$d/t2" -- "${run[@]}" >"$d/trace2.log" 2>&1 ||
  fail "trace --runs 2 exited $?: $(tail -n 5 "$d/trace2.log")"
grep -q 'note (run 2 of 2): ' "$d/trace2.log" || fail "trace --runs 2 did not say which run it kept"
"$pas2p" analyze "$d/t" -o "$d/sig.xml" >"$d/analyze.log" 2>&1 || fail "analyze failed: $(tail -n 5 "$d/analyze.log")"
"$pas2p" analyze "$d/t" --mpi 2 -o "$d/sig_mpi.xml" -- "$d/bin/mpirun" >"$d/analyze_mpi.log" 2>&1 ||
  fail "analyze --mpi 2 exited $?: $(tail -n 5 "$d/analyze_mpi.log")"
grep -q 'note: .*its part whole.*kept' "$d/analyze_mpi.log" || fail "analyze --mpi did not say why it kept the result"
cmp -s "$d/sig.xml" "$d/sig_mpi.xml" || fail "analyze --mpi 2 wrote another signature"

"$pas2p" replay "$d/sig.xml" -o "$d/rep" -- "$d/bin/mpirun" -np 2 >"$d/replay.log" 2>&1 ||
  fail "replay exited $?: $(tail -n 5 "$d/replay.log")"
grep -q '^PET = ' "$d/replay.log" || fail "replay printed no PET"
grep -q 'note: .*its replay times whole.*kept' "$d/replay.log" || fail "replay did not say why it kept the times"

"$pas2p" trace -o "$d/te" -- "${erun[@]}" >"$d/tracee.log" 2>&1 || fail "trace of $endapp exited $?: $(tail -n 5 "$d/tracee.log")"
"$pas2p" analyze "$d/te" -o "$d/sig_end.xml" >"$d/analyzee.log" 2>&1 || fail "analyze of $endapp failed: $(tail -n 5 "$d/analyzee.log")"
"$pas2p" predict "$d/sig_end.xml" --measure-end -o "$d/pred" -- "${erun[@]}" >"$d/predict.log" 2>&1 ||
  fail "predict exited $?: $(tail -n 5 "$d/predict.log")"
grep -q '^PET = ' "$d/predict.log" || fail "predict printed no PET"
grep -q 'note: .*its times whole.*kept' "$d/predict.log" || fail "predict did not say why it kept the times"

# the launcher crashing in its own teardown after the run (Open MPI 4.1's mpirun, signal 11
# in PMIx_server_finalize): trace, replay and predict keep the whole trace or times and say
# why; with no rank run they fail
NOSYNC_CRASH=1 "$pas2p" trace -o "$d/tc" -- "${erun[@]}" >"$d/tracec.log" 2>&1 ||
  fail "trace exited $? when the launcher crashed after the run: $(tail -n 5 "$d/tracec.log")"
grep -q 'note: the launcher was ended by signal 11 .*whole.*kept' "$d/tracec.log" ||
  fail "trace did not say why it kept the trace of a launcher that crashed: $(cat "$d/tracec.log")"
NOSYNC_RUN=0 NOSYNC_CRASH=1 "$pas2p" trace -o "$d/tc0" -- "${erun[@]}" >"$d/tracec0.log" 2>&1 &&
  fail "trace succeeded when the launcher crashed with no rank run"
NOSYNC_CRASH=1 "$pas2p" replay "$d/sig.xml" -o "$d/repc" -- "$d/bin/mpirun" -np 2 >"$d/replayc.log" 2>&1 ||
  fail "replay exited $? when the launcher crashed after the run: $(tail -n 5 "$d/replayc.log")"
grep -q 'note: the launcher was ended by signal 11 .*whole.*kept' "$d/replayc.log" ||
  fail "replay did not say why it kept the times of a launcher that crashed: $(cat "$d/replayc.log")"
NOSYNC_RUN=0 NOSYNC_CRASH=1 "$pas2p" replay "$d/sig.xml" -o "$d/repc0" -- "$d/bin/mpirun" -np 2 >"$d/replayc0.log" 2>&1 &&
  fail "replay succeeded when the launcher crashed with no rank run"
NOSYNC_CRASH=1 "$pas2p" predict "$d/sig_end.xml" -o "$d/predc" -- "${erun[@]}" >"$d/predictc.log" 2>&1 ||
  fail "predict exited $? when the launcher crashed after the run: $(tail -n 5 "$d/predictc.log")"
grep -q 'note: the launcher was ended by signal 11 .*whole.*kept' "$d/predictc.log" ||
  fail "predict did not say why it kept the times of a launcher that crashed: $(cat "$d/predictc.log")"
NOSYNC_RUN=0 NOSYNC_CRASH=1 "$pas2p" predict "$d/sig_end.xml" -o "$d/predc0" -- "${erun[@]}" >"$d/predictc0.log" 2>&1 &&
  fail "predict succeeded when the launcher crashed with no rank run"

# a real PID: the launcher's status stands
NOSYNC_PID=4242 "$pas2p" trace -o "$d/tp" -- "${run[@]}" >"$d/tracep.log" 2>&1 && fail "trace kept a run the launcher failed (PID 4242)"
grep -q 'the application exited with status 1' "$d/tracep.log" || fail "trace did not say the status: $(tail -n 3 "$d/tracep.log")"
NOSYNC_PID=4242 "$pas2p" replay "$d/sig.xml" -o "$d/repp" -- "$d/bin/mpirun" -np 2 >"$d/replayp.log" 2>&1 &&
  fail "replay kept a run the launcher failed (PID 4242)"
NOSYNC_PID=4242 "$pas2p" predict "$d/sig_end.xml" --measure-end -o "$d/predp" -- "${erun[@]}" >"$d/predictp.log" 2>&1 &&
  fail "predict passed a run the launcher failed (PID 4242) as its own"
grep -q 'the launcher exited with status 1' "$d/predictp.log" || fail "predict did not say the status: $(tail -n 3 "$d/predictp.log")"
# the banner, and no rank ran: nothing to keep
NOSYNC_RUN=0 "$pas2p" replay "$d/sig.xml" -o "$d/rep0" -- "$d/bin/mpirun" -np 2 >"$d/replay0.log" 2>&1 &&
  fail "replay succeeded with no rank run"
grep -q 'launcher exit status 1' "$d/replay0.log" || fail "replay with no rank run: $(tail -n 3 "$d/replay0.log")"
NOSYNC_RUN=0 "$pas2p" trace -o "$d/t0" -- "${run[@]}" >"$d/trace0.log" 2>&1 && fail "trace succeeded with no rank run"
NOSYNC_RUN=0 "$pas2p" predict "$d/sig.xml" -o "$d/pred0" -- "${run[@]}" >"$d/predict0.log" 2>&1 &&
  fail "predict succeeded with no rank run"
echo "no_sync: ok"
