#!/usr/bin/env bash
# docs/CLI.md carries every command's --help verbatim: the first fenced block under each
# `## CMD` heading must be what `pas2p CMD --help` prints.  Usage: cli_doc.sh PAS2P DOC
set -uo pipefail
pas2p=$1 doc=$2
fail=0
for cmd in $(sed -n 's/^## \([a-z]*\)$/\1/p' "$doc"); do
  want=$(awk -v c="## $cmd" '$0 == c {f = 1; next} f && /^```/ {if (in_) exit; in_ = 1; next} in_ {print}' "$doc")
  got=$("$pas2p" "$cmd" --help 2>&1)
  if [[ "$want" != "$got" ]]; then
    echo "docs/CLI.md: '## $cmd' differs from 'pas2p $cmd --help':"
    diff <(echo "$want") <(echo "$got") | head -20
    fail=1
  fi
done
(($(grep -c '^## [a-z]*$' "$doc") >= 9)) || { echo "docs/CLI.md: fewer than 9 command sections"; fail=1; }
exit $fail
