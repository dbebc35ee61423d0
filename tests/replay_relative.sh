#!/usr/bin/env bash
# replay_relative.sh PAS2P SIGNATURE OTHER_SIGNATURE WORK_DIR LAUNCHER...
# `pas2p replay --relative BASE_DIR`: each phase's target time is its base PhaseET x (this
# replay's time / BASE_DIR's time).  A base replay whose phase times are halved (a base
# twice as fast at the replay as here) must double the PET; a replay of the other signature,
# another --compute, a directory without a replay, and --export are refused in one line.
set -u
pas2p=$1 sig=$2 other=$3 work=$4; shift 4
fail() { echo "replay_relative: $*"; exit 1; }
pet() { awk '$1 == "PET" && $2 == "=" { print $3 }'; }
rm -rf "$work/rel-base" "$work/rel-half" "$work/rel-t1" "$work/rel-t2" "$work/rel-other"
abs=$("$pas2p" replay "$sig" --compute sleep --reps 1 -o "$work/rel-base" -- "$@" | pet)
[[ -n $abs ]] || fail "the base replay printed no PET"
cp -r "$work/rel-base" "$work/rel-half"
for f in "$work"/rel-half/rank-*.times; do
  awk '$1 == "phase" { printf "phase %s", $2; for (i = 3; i <= NF; i++) printf " %.9f", $i / 2; print ""; next }
       { print }' "$f" >"$f.new" && mv "$f.new" "$f"
done
rel=$("$pas2p" replay "$sig" --compute sleep --reps 1 --relative "$work/rel-half" -o "$work/rel-t1" -- "$@" | pet)
echo "absolute PET $abs s; relative to a base replay twice as fast: PET $rel s"
awk -v a="$abs" -v r="$rel" 'BEGIN { exit !(r > 1.9 * a && r < 2.1 * a) }' ||
  fail "relative PET $rel s is not twice the absolute $abs s"
"$pas2p" replay "$sig" --compute sleep --reps 1 --relative "$work/rel-t1" -o "$work/rel-t2" -- "$@" |
  grep -q "relative to the base replay in $work/rel-t1" || fail "the run does not say what it is relative to"
# refusals: one line, non-zero, naming the reason
expect_refusal() { # expect_refusal REGEX ARGS...
  local re=$1 err; shift
  err=$("$pas2p" replay "$@" 2>&1 >/dev/null) && fail "accepted: $*"
  [[ $(grep -c '' <<<"$err") == 1 && $err =~ $re ]] || fail "for '$*' expected /$re/ in one line, got: $err"
}
"$pas2p" replay "$other" --compute sleep --reps 1 -o "$work/rel-other" -- "$@" >/dev/null ||
  fail "the other signature's replay failed"
expect_refusal "ran another signature" "$sig" --compute sleep --relative "$work/rel-other" -o "$work/rel-x" -- "$@"
expect_refusal "has other settings" "$sig" --compute kernel --relative "$work/rel-base" -o "$work/rel-x" -- "$@"
expect_refusal "not-there/prediction.xml" "$sig" --relative "$work/not-there" -o "$work/rel-x" -- "$@"
expect_refusal "--export runs nothing" "$sig" --relative "$work/rel-base" --export "$work/rel-x"
echo "replay_relative: OK"
