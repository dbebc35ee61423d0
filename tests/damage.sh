#!/usr/bin/env bash
# damage.sh MODE SRC DST [PAS2P]: copies trace SRC to DST and damages it.
#   truncate  cut 50 bytes off the end of rank 0's file
#   boundary  cut rank 0's file exactly between two records (PAS2P finds where)
#   np        the manifest claims one rank fewer than the files were written by
#   version   set the format version of rank 0's file and of the manifest to the next one
#             (a trace from a newer pas2p)
#   old       set them to 1 (a trace from before wildcard receives were flagged)
#   missing   remove rank 2's file
#   redefine  a 2-rank trace whose communicator ids are reused (tests/mpi/commloop.c): a
#             definition of a copy of the world in rank 0's file (the second match of its
#             bytes) lists rank 0 twice: an id defined with other members
set -eu
mode=$1 src=$2 dst=$3
rm -rf "$dst"; cp -r "$src" "$dst"
f=$dst/rank-00000.p2t
case $mode in
  truncate) truncate -s $(( $(stat -c %s "$f") - 50 )) "$f" ;;
  version|old)
    v=$(awk '/^version = /{print $3}' "$dst/manifest")
    [[ $mode == old ]] && n=1 || n=$((v + 1))
    printf "\\x$(printf %02x "$n")" | dd of="$f" bs=1 seek=8 conv=notrunc status=none
    sed -i "s/^version = $v\$/version = $n/" "$dst/manifest" ;;
  missing) rm -f "$dst/rank-00002.p2t" ;;
  redefine) python3 - "$f" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
# a definition of two members, no dimensions: size 2, ndims 0, world ranks 0 and 1
pat = bytes.fromhex("02000000" "00000000" "00000000" "01000000")
first = b.find(pat)
second = b.find(pat, first + 1) if first >= 0 else -1
if second < 0:
    sys.exit("damage.sh: no second definition of a 2-rank communicator")
b[second + 12:second + 16] = bytes.fromhex("00000000")
open(p, "wb").write(b)
PY
  ;;
  np) n=$(awk '/^np = /{print $3}' "$dst/manifest"); sed -i "s/^np = $n\$/np = $((n - 1))/" "$dst/manifest" ;;
  boundary)
    size=$(stat -c %s "$f")
    for cut in $(seq 1 200); do
      cp "$src/rank-00000.p2t" "$f"
      truncate -s $(( size - cut )) "$f"
      "$4" dump "$dst" --rank 0 2>&1 >/dev/null | grep -q "manifest says" && exit 0
    done
    echo "damage.sh: no record boundary found" >&2; exit 1 ;;
  *) echo "damage.sh: unknown mode $mode" >&2; exit 2 ;;
esac
