#!/usr/bin/env bash
# sim_vs_full.sh PAS2P SIGNATURE TRACE_DIR PLATFORM WORK_DIR MAX_PERCENT [SIMULATE_OPTIONS...]
# The signature's simulation against the full-trace simulation of the trace it came from,
# on one platform with the same options: |difference| <= MAX_PERCENT, or a one-line failure
# with both PETs.  (Both replay the same trace, so the machine's noise when it was traced
# is in both; what is left is what the signature models wrongly.)
set -u
pas2p=$1 sig=$2 trace=$3 plat=$4 work=$5 max=$6; shift 6
pet() { awk '$1 == "PET" && $2 == "=" { print $3 }'; }
rm -rf "$work/svf-sig" "$work/svf-full"
s=$("$pas2p" simulate "$sig" --platform "$plat" -o "$work/svf-sig" "$@" | pet)
f=$("$pas2p" simulate --full-trace "$trace" --platform "$plat" -o "$work/svf-full" "$@" | pet)
[[ -n $s && -n $f ]] || { echo "sim_vs_full: no PET (signature '$s', full trace '$f')"; exit 1; }
awk -v s="$s" -v f="$f" -v m="$max" 'BEGIN {
  d = (s - f) / f * 100; printf "signature PET %s s, full trace %s s: %+.2f %%\n", s, f, d
  exit !(d <= m && d >= -m) }' || { echo "sim_vs_full: more than $max % apart"; exit 1; }
