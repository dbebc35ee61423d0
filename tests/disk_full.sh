#!/usr/bin/env bash
# disk_full.sh PAS2P APP: traces APP (np 2) into a 64 KiB tmpfs.  The application must run
# to the end and verify; each rank must name its file and ENOSPC; pas2p trace must fail.
# Exits 77 (skipped) where mounting is not allowed.
set -u
pas2p=$1 app=$2
mnt=$(mktemp -d)
mount -t tmpfs -o size=64k tmpfs "$mnt" 2>/dev/null || { rmdir "$mnt"; echo "skipped: cannot mount a tmpfs here"; exit 77; }
trap 'umount "$mnt"; rmdir "$mnt"' EXIT
out=$("$pas2p" trace -o "$mnt/t" -- mpirun --oversubscribe --bind-to none -np 2 "$app" 256 2000 2>&1)
rc=$?
echo "$out"
fail() { echo "FAILED: $*"; exit 1; }
(( rc != 0 )) || fail "pas2p trace exited 0 on a full disk"
grep -q "verification = OK" <<<"$out" || fail "the application did not finish"
grep -q "rank-0000[01].p2t: No space left on device" <<<"$out" || fail "no rank named its file"
grep -q "^pas2p trace: incomplete trace" <<<"$out" || fail "no final one-line verdict"
[[ ! -e $mnt/t/manifest.tmp ]] || fail "manifest.tmp left behind"
echo "disk_full: OK"
