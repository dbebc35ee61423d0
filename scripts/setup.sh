#!/usr/bin/env bash
# Installs the Debian packages pas2p needs, only those missing (idempotent).
# Used by scripts/quickstart.sh and scripts/test.sh; safe to run by hand.
set -euo pipefail
packages=(
  cmake make gcc gfortran pkg-config python3
  libopenmpi-dev openmpi-bin        # MPI: the tracer, the bundled applications
  libsimgrid-dev                    # SimGrid 3.32 SMPI: simulated targets
  libpapi-dev                       # hardware counters (the tool runs without them)
  libxml2-dev                       # signature and platform XML
  libcmocka-dev                     # unit tests
  clang libclang-rt-dev             # libFuzzer harnesses of the readers (sanitizer build)
  procps coreutils                  # timeout, pgrep (tests)
  iproute2 util-linux               # validation/vcluster: ip, tc, nsenter, unshare
  gnuplot-nox                       # validation/experiment.sh: the PET-vs-AET plot
  lammps                            # validation/lammps: a real MPI application (lmp, Open MPI)
  hpcc                              # tests: HPC Challenge, a real MPI benchmark suite
  chromium                          # tests: pas2p report's page rendered headless
)
missing=()
for p in "${packages[@]}"; do
  [[ $p == \#* ]] && continue
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]} == 0)); then
  echo "setup: all ${#packages[@]} Debian packages present"
  exit 0
fi
echo "setup: installing ${missing[*]}"
SUDO=
if [[ $(id -u) != 0 ]]; then
  command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
