#!/usr/bin/env bash
# replay_unsteady.sh PAS2P CLOSED_FORM_SIGNATURE WORK_DIR LAUNCHER...
# A real-MPI replay whose timed repetitions of a phase disagree replays it again until they
# agree (pas2p_times_unsteady, as predict's stop does).  The closed-form signature scaled
# to a 10 ms phase (weight 10: PET ~0.1 s); the replayer's test hook makes rank 0's first
# timed repetition 0.3 s longer.  Two values (0.31, 0.01 s) would give a median of 0.16 s
# and a PET of ~1.6 s; with the repetitions added the median is a normal one: PET < 0.6 s
# even on a loaded machine, and phase 1 is timed 3 to 5 times.
set -u
pas2p=$1 sig=$2 work=$3; shift 3
fail() { echo "replay_unsteady: $*"; exit 1; }
small=$work/unsteady.sig.xml
sed -e 's/compute_s="1"/compute_s="0.01"/; s/compute_mean_s="1"/compute_mean_s="0.01"/' \
    -e 's/1\.00101/0.01101/g; s/10\.0101/0.1101/g' "$sig" >"$small"
grep -q 'compute_s="0.01"' "$small" || fail "could not scale $sig"
rm -rf "$work/unsteady" "$work/unsteady-bad"
out=$(PAS2P_REPLAY_TEST_HICCUP=1:0.3 "$pas2p" replay "$small" --compute sleep -o "$work/unsteady" -- "$@") ||
  fail "the replay failed: $out"
echo "$out"
pet=$(awk '$1 == "PET" && $2 == "=" { print $3 }' <<<"$out")
[[ -n $pet ]] || fail "no PET printed"
n=$(awk '$1 == "phase" && $2 == 1 { print NF - 2 }' "$work/unsteady/rank-00000.times")
[[ $n -ge 3 && $n -le 5 ]] || fail "phase 1 timed $n times on rank 0: expected 3 to 5 (2 planned, then until steady)"
awk -v p="$pet" 'BEGIN { exit !(p > 0.05 && p < 0.6) }' ||
  fail "PET $pet s: the hiccup's repetition decided it (a steady replay gives ~0.11 s)"
echo "ok: phase 1 timed $n times, PET $pet s"
# a malformed hook: one line, exit 2, nothing launched
err=$(PAS2P_REPLAY_TEST_HICCUP=bad "$pas2p" replay "$small" --compute sleep -o "$work/unsteady-bad" -- "$@" 2>&1 >/dev/null)
rc=$?
[[ $rc == 2 && $(grep -c '' <<<"$err") == 1 && $err == *"PAS2P_REPLAY_TEST_HICCUP=bad"* ]] ||
  fail "a malformed hook: rc $rc, said: $err"
echo "ok: a malformed hook refused in one line"
