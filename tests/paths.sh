# paths.sh: sourced by the every-path tests (intercomm.sh, persistent.sh).
# every_path PAS2P PLATFORM.xml WORKDIR -- LAUNCHER... PROG ARGS...: the signature
# WORKDIR/sig.xml simulated on PLATFORM, the trace WORKDIR/t simulated whole, the signature
# replayed with the launcher and predicted with the program; each must exit 0 and print
# PET (their output in WORKDIR/{simulate,full,replay,predict}.out).  The caller's fail()
# says what broke.  PROG takes two words (the program and one argument).
every_path() {
  local pas2p=$1 plat=$2 w=$3
  shift 4
  timeout 120 "$pas2p" simulate "$w/sig.xml" --platform "$plat" -o "$w/sim" >"$w/simulate.out" 2>"$w/simulate.err" ||
    fail "simulate exited $?"
  timeout 120 "$pas2p" simulate --full-trace "$w/t" --platform "$plat" -o "$w/full" >"$w/full.out" 2>"$w/full.err" ||
    fail "simulate --full-trace exited $?"
  timeout 120 "$pas2p" replay "$w/sig.xml" -o "$w/rep" -- "${@:1:$#-2}" >"$w/replay.out" 2>"$w/replay.err" ||
    fail "replay exited $?"
  timeout 120 "$pas2p" predict "$w/sig.xml" -o "$w/pred" -- "$@" >"$w/predict.out" 2>"$w/predict.err" ||
    fail "predict exited $?"
  local f
  for f in simulate full replay predict; do
    grep -q '^PET = [0-9.]* s$' "$w/$f.out" || fail "$f printed no PET"
  done
}
