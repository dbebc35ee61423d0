# paths.sh: sourced by the every-path tests (intercomm.sh, persistent.sh, wcoll.sh), which
# set pas2p (the binary) and w (their work directory) first.
#
# fail MESSAGE: says it with the tail of every output in w, and exits 1.
fail() {
  echo "FAIL: $*"
  local f
  for f in "$w"/*.out "$w"/*.err; do [[ -s $f ]] && { echo "--- $f"; tail -n 20 "$f"; }; done
  exit 1
}

# traced_app NAME LAUNCHER... PROG ARGS...: w made afresh, the program traced into w/t (it
# must print "NAME: ok") and analysed into w/sig.xml.
traced_app() {
  local name=$1
  shift
  rm -rf "$w"; mkdir -p "$w"
  timeout 120 "$pas2p" trace -o "$w/t" -- "$@" >"$w/trace.out" 2>"$w/trace.err" || fail "trace failed"
  grep -q "^$name: ok$" "$w/trace.out" || fail "the program did not say ok"
  "$pas2p" analyze "$w/t" -o "$w/sig.xml" >"$w/analyze.out" 2>"$w/analyze.err" || fail "analyze exited $?"
}

# every_path PAS2P PLATFORM.xml WORKDIR -- LAUNCHER... PROG ARGS...: the signature
# WORKDIR/sig.xml simulated on PLATFORM, the trace WORKDIR/t simulated whole, the signature
# replayed with the launcher and predicted with the program; each must exit 0 and print
# PET (their output in WORKDIR/{simulate,full,replay,predict}.out).  PROG takes two words
# (the program and one argument).
every_path() {
  local pas2p=$1 plat=$2 w=$3
  shift 4
  timeout 120 "$pas2p" simulate "$w/sig.xml" --platform "$plat" -o "$w/sim" >"$w/simulate.out" 2>"$w/simulate.err" ||
    fail "simulate exited $?"
  timeout 120 "$pas2p" simulate --full-trace "$w/t" --platform "$plat" -o "$w/full" >"$w/full.out" 2>"$w/full.err" ||
    fail "simulate --full-trace exited $?"
  timeout 120 "$pas2p" replay "$w/sig.xml" -o "$w/rep" -- "${@:1:$#-2}" >"$w/replay.out" 2>"$w/replay.err" ||
    fail "replay exited $?"
  # a block of `reps N` (a repetition under 2 ms of base time) was timed N - 1 times, and
  # up to twice that and one (16 at most) when its repetitions disagreed (replayer.c)
  awk 'FNR == 1 { f++ } f == 1 && $1 == "phase" && $NF != "once" { n = 3; for (i = 4; i < NF; i++) if ($i == "reps") n = $(i + 1); lo[$2] = n - 1; hi[$2] = 2 * (n - 1) + 1 < 16 ? 2 * (n - 1) + 1 : 16 }
       f == 2 && $1 == "phase" && ($2 in lo) && (NF - 2 < lo[$2] || NF - 2 > hi[$2]) { print "phase " $2 ": " NF - 2 " values, not " lo[$2] " to " hi[$2]; bad = 1 }
       END { exit bad }' "$w/rep/actions/rank-00000.act" "$w/rep/rank-00000.times" >"$w/reps.txt" ||
    fail "replay's repetitions: $(cat "$w/reps.txt")"
  timeout 120 "$pas2p" predict "$w/sig.xml" -o "$w/pred" -- "$@" >"$w/predict.out" 2>"$w/predict.err" ||
    fail "predict exited $?"
  local f
  for f in simulate full replay predict; do
    grep -q '^PET = [0-9.]* s$' "$w/$f.out" || fail "$f printed no PET"
  done
}
