#!/usr/bin/env bash
# The main job, from a fresh machine: install what is missing, build, trace a bundled
# application (conjugate gradient, 2 ranks: one per core here), analyse it into a signature, and predict it by
# running it under the signature on this machine (AET, PET, PETE, SET), then simulates it on
# a Gigabit-Ethernet cluster (platforms/gbe-cluster.xml).
#   bash scripts/quickstart.sh [TRACE_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >build.configure.log 2>&1 ||
  { cat build.configure.log; exit 1; }
cmake --build build -j"$(nproc)" >build.build.log 2>&1 || { tail -40 build.build.log; exit 1; }
trace=${1:-quickstart-trace}
rm -rf "$trace" "$trace-predict" "$trace-simulate"
launch=(mpirun --oversubscribe --bind-to core:overload-allowed --mca mpi_yield_when_idle 1 -np 2 build/apps/cg 1024 300)
run() { echo "\$ $*"; "$@"; }
run build/bin/pas2p trace -o "$trace" -- "${launch[@]}"
echo
run build/bin/pas2p dump "$trace"
echo
run build/bin/pas2p analyze "$trace"
echo
aet=$(build/bin/pas2p dump "$trace" | awk '/^AET = /{print $3}')
run build/bin/pas2p predict "$trace/signature.xml" -o "$trace-predict" --aet "$aet" -- "${launch[@]}"
echo
# the same signature on a simulated target: a Gigabit-Ethernet cluster, one rank per node
run build/bin/pas2p simulate "$trace/signature.xml" --platform platforms/gbe-cluster.xml \
  --map round-robin -o "$trace-simulate"
