#!/usr/bin/env bash
# expect.sh [--fail] [--rc N] [--one-line] [--out REGEX]... [--clean DIR]... -- COMMAND...
# Runs COMMAND and checks how it ended: --fail: non-zero exit (default: zero exit); --rc N:
# exit N exactly; --one-line: stderr is exactly one line (a bad-input error); --out: the
# combined output matches REGEX (extended grep); --clean: rm -rf DIR first.  Prints what it
# saw on failure.
set -u
want_fail=0 want_rc= one_line=0 regexes=()
while [[ $# -gt 0 && $1 != -- ]]; do
  case $1 in
    --fail) want_fail=1 ;;
    --rc) want_rc=$2; want_fail=$(( $2 != 0 )); shift ;;
    --one-line) one_line=1 ;;
    --out) regexes+=("$2"); shift ;;
    --clean) rm -rf "$2"; shift ;;
    *) echo "expect.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
shift
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
"$@" >"$out" 2>"$err"
rc=$?
bad=0
if (( want_fail )) && (( rc == 0 )); then echo "expected a failure, got exit 0"; bad=1; fi
if (( ! want_fail )) && (( rc != 0 )); then echo "expected success, got exit $rc"; bad=1; fi
if [[ -n $want_rc ]] && (( rc != want_rc )); then echo "expected exit $want_rc, got exit $rc"; bad=1; fi
if (( want_fail )) && (( rc >= 128 )); then echo "crashed with signal $((rc - 128))"; bad=1; fi
if (( one_line )); then
  n=$(grep -c '' "$err")
  if (( n != 1 )); then echo "expected a one-line error, stderr has $n lines"; bad=1; fi
fi
for re in "${regexes[@]}"; do
  if ! cat "$out" "$err" | grep -Eq -- "$re"; then echo "output does not match: $re"; bad=1; fi
done
if (( bad )); then
  echo "--- command: $*"; echo "--- exit: $rc"; echo "--- stdout:"; head -50 "$out"; echo "--- stderr:"; head -50 "$err"
  exit 1
fi
echo "ok: $* (exit $rc)"
