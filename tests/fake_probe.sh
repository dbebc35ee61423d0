#!/usr/bin/env bash
# fake_probe.sh speed SECONDS OUT | fake_probe.sh net OUT
# A stand-in for bin/pas2p-probe (PAS2P_PROBE) with known results, so that the platform
# `pas2p calibrate` fits can be checked against closed forms: 1 Gflop/s, 10 us latency,
# one-way times that grow to ~1 GB/s.  FAKE_PROBE_SLOW_1B=1: the 1-byte time (and the
# latency) measured 3x slower than 1 KiB's, as a probe whose ranks still shared a core
# measures it.  Under mpirun only rank 0 writes.
set -u
[[ ${OMPI_COMM_WORLD_RANK:-0} == 0 ]] || exit 0
case ${1:-} in
  speed) echo "speed = 1e9" >"$3" ;;
  net) one=1e-05; [[ ${FAKE_PROBE_SLOW_1B:-} == 1 ]] && one=3.6e-05
       printf '%s\n' "latency = $one" "bandwidth = 9.98642e+08" "oneway-1 = $one" \
         "oneway-1024 = 1.2e-05" "oneway-8192 = 2e-05" "oneway-65536 = 8e-05" \
         "oneway-524288 = 0.0006" "oneway-4194304 = 0.0042" >"$2" ;;
  *) echo "fake_probe.sh: speed SECONDS OUT | net OUT" >&2; exit 2 ;;
esac
