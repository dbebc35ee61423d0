#!/usr/bin/env bash
# calibrate_model.sh PAS2P DATA_DIR WORK_DIR LAUNCHER...
# `pas2p calibrate`'s network model against closed forms, with a probe of known results
# (fake_probe.sh): SMPI's piecewise factors in the platform reproduce every measured
# one-way time (latency x lat-factor(s) + s / (bandwidth x bw-factor(s)) at each measured
# size s), and SimGrid itself honours them: the closed-form signature (10 x: 1 s of compute
# at 1 Gflop/s, then 1 MB sent) simulated on the platform (hosts at half a core: 2 s)
# takes 10 x (2 s + the one-way time interpolated at 1 MB).
set -u
pas2p=$1 data=$2 work=$3; shift 3
fail() { echo "calibrate_model: $*"; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
plat=$work/fake-calib.xml
rm -rf "$plat" "$work/sim-fake"
PAS2P_PROBE=$here/fake_probe.sh "$pas2p" calibrate --hosts 2 --cpu 0.5 -o "$plat" -- "$@" >/dev/null ||
  fail "calibrate with the fake probe failed"
# the measured points, as the fake probe gives them
sizes=(1 1024 8192 65536 524288 4194304)
times=(1e-05 1.2e-05 2e-05 8e-05 0.0006 0.0042)
lat=1e-05 bw=9.98642e+08
factors() { sed -n "s/.*id=\"smpi\/$1\" value=\"\([^\"]*\)\".*/\1/p" "$plat"; }
lf=$(factors lat-factor) bf=$(factors bw-factor)
[[ -n $lf && -n $bf ]] || fail "no piecewise factors in $plat"
for i in "${!sizes[@]}"; do
  awk -v s="${sizes[$i]}" -v t="${times[$i]}" -v lat="$lat" -v bw="$bw" -v lf="$lf" -v bf="$bf" '
    function pick(spec, s,   n, p, k, kv, v) { # the factor of the largest threshold <= s
      n = split(spec, p, ";"); v = -1
      for (k = 1; k <= n; k++) { split(p[k], kv, ":"); if (kv[1] + 0 <= s) v = kv[2] }
      return v }
    BEGIN { m = lat * pick(lf, s) + s / (bw * pick(bf, s))
            printf "%8d bytes: measured %.6g s, model %.6g s\n", s, t, m
            exit !(m > 0.999 * t && m < 1.001 * t) }' || fail "the model misses the measured time at ${sizes[$i]} bytes"
done
pet=$("$pas2p" simulate "$data/closed-form.sig.xml" --platform "$plat" --base-speed 1Gf -o "$work/sim-fake" |
      awk '$1 == "PET" { print $3 }')
want=$(awk 'BEGIN { printf "%.6f", 10 * (2 + 0.0006 + (1e6 - 524288) * (0.0042 - 0.0006) / (4194304 - 524288)) }')
echo "closed form at 1 MB: simulated PET $pet s, expected $want s"
awk -v p="$pet" -v w="$want" 'BEGIN { exit !(p > w - 2e-6 && p < w + 2e-6) }' || fail "PET $pet s, expected $want s"
