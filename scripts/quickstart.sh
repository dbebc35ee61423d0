#!/usr/bin/env bash
# The main job, from a fresh machine: install what is missing, build, trace a bundled
# application (2-D stencil, 4 ranks) and show its structural profile.
#   bash scripts/quickstart.sh [TRACE_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >build.configure.log 2>&1 ||
  { cat build.configure.log; exit 1; }
cmake --build build -j"$(nproc)" >build.build.log 2>&1 || { tail -40 build.build.log; exit 1; }
trace=${1:-quickstart-trace}
rm -rf "$trace"
run() { echo "\$ $*"; "$@"; }
run build/bin/pas2p trace -o "$trace" -- \
  mpirun --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 -np 4 build/apps/stencil2d 2048 150
echo
run build/bin/pas2p dump "$trace"
echo
echo "# first events of rank 0:"
build/bin/pas2p dump "$trace" --rank 0 | awk 'NR <= 12'
echo
run build/bin/pas2p analyze "$trace"
