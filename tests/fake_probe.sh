#!/usr/bin/env bash
# fake_probe.sh speed SECONDS OUT | fake_probe.sh net OUT
# A stand-in for bin/pas2p-probe (PAS2P_PROBE) with known results, so that the platform
# `pas2p calibrate` fits can be checked against closed forms: 1 Gflop/s, 10 us latency,
# one-way times that grow to ~1 GB/s.  Under mpirun only rank 0 writes.
set -u
[[ ${OMPI_COMM_WORLD_RANK:-0} == 0 ]] || exit 0
case ${1:-} in
  speed) echo "speed = 1e9" >"$3" ;;
  net) printf '%s\n' "latency = 1e-05" "bandwidth = 9.98642e+08" "oneway-1 = 1e-05" \
         "oneway-1024 = 1.2e-05" "oneway-8192 = 2e-05" "oneway-65536 = 8e-05" \
         "oneway-524288 = 0.0006" "oneway-4194304 = 0.0042" >"$2" ;;
  *) echo "fake_probe.sh: speed SECONDS OUT | net OUT" >&2; exit 2 ;;
esac
