#!/usr/bin/env bash
# The whole test suite, from a fresh machine: installs what is missing, builds twice
# (-Werror, and -Werror with AddressSanitizer + UndefinedBehaviorSanitizer) and runs
# ctest in both.  The ASan run goes first so that the output ends with the main summary.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
jobs=$(nproc)
build() { # build DIR CMAKE_ARGS...
  local dir=$1; shift
  cmake -S . -B "$dir" -DPAS2P_WERROR=ON "$@" >"$dir.configure.log" 2>&1 ||
    { cat "$dir.configure.log"; return 1; }
  cmake --build "$dir" -j"$jobs" >"$dir.build.log" 2>&1 ||
    { grep -E -B2 -A6 "error|Error" "$dir.build.log" | head -80; return 1; }
}
echo "== build with ASan+UBSan (build-asan)"
build build-asan -DCMAKE_BUILD_TYPE=Debug -DPAS2P_SANITIZE=ON || exit 1
echo "== build (build)"
build build -DCMAKE_BUILD_TYPE=RelWithDebInfo || exit 1
echo "== tests under ASan+UBSan"
(cd build-asan && ctest --output-on-failure -j2); asan=$?
echo "== tests"
(cd build && ctest --output-on-failure -j2); main=$?
exit $(( asan || main ))
