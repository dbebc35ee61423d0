# The prediction pipeline (signature/pas2p_pipeline.h) and what it replaced: the times file's
# one owner, one launcher in the tree, simulate --sweep in-process, the exit-code contract.

# The times file's one writer and reader (signature/pas2p_times.h, self-contained): the
# documented layout, read back; a missing, foreign, status-less or value-less file refused.
add_executable(test_times unit/test_times.c)
target_include_directories(test_times PRIVATE ${PROJECT_SOURCE_DIR}/signature)
target_link_libraries(test_times PRIVATE PkgConfig::CMOCKA m)
add_test(NAME unit_times COMMAND test_times)
# The pipeline with a backend written in the test (no MPI, no SimGrid): PET, prediction.xml
# and the printed lines are the pipeline's; a missing times file, a divergence, a status to
# pass through, a bad --relative base and a bad signature.
add_executable(test_pipeline unit/test_pipeline.c)
target_link_libraries(test_pipeline PRIVATE pas2p_predict PkgConfig::CMOCKA m)
add_test(NAME unit_pipeline COMMAND test_pipeline ${D}/closed-form.sig.xml)
# One launcher: no fork or exec in the modules' sources but the tracer's pas2p_launch
# (tracer/launch.c), and no command that re-executes pas2p (simulate --sweep runs the
# pipeline in-process).
add_test(NAME pipeline_one_launcher COMMAND bash -c [=[
  src=$1
  hits=$(grep -rlE '\<(fork|vfork|execv|execvp|execve|execl|execlp|posix_spawn|popen|system) *\(' \
         "$src"/tracer "$src"/signature "$src"/simbackend "$src"/analyzer "$src"/src --include=*.c |
         grep -v '/tracer/launch\.c$')
  [[ -z $hits ]] || { echo "fork/exec outside tracer/launch.c: $hits"; exit 1; }
  if grep -rn '/proc/self/exe' "$src"/signature "$src"/simbackend "$src"/src --include=*.c; then
    echo "a command finds itself to re-execute (above)"; exit 1; fi
  echo "one launcher: tracer/launch.c"]=] one ${PROJECT_SOURCE_DIR})
# --sweep in-process: a point's failure is named with its reason (SimGrid's, from its
# simgrid.log), kept in the point's log, and stops the sweep at the first point
add_test(NAME simulate_sweep_point_fails COMMAND ${EXPECT} --fail --clean ${W}/sim-sweep-bad
  --out "sweep point 1 \\(speed=1,bw=0\\.5,lat=1\\) failed: SimGrid failed .*no connecting path"
  --out "^points = 0$"
  -- ${PAS2P} simulate ${D}/closed-form.sig.xml --platform ${D}/no-route.xml --sweep bw=0.5:1
  -o ${W}/sim-sweep-bad)
add_test(NAME simulate_sweep_point_log COMMAND grep -q "^pas2p simulate: SimGrid failed"
  ${W}/sim-sweep-bad/point-001.log)
set_tests_properties(simulate_sweep_point_log PROPERTIES DEPENDS simulate_sweep_point_fails)
# the reference (--full-trace) is a pipeline run too: it sweeps, PET = its replay's SET
add_test(NAME simulate_sweep_full_trace COMMAND ${EXPECT} --clean ${W}/sim-sweep-full
  --out "^points = 2$" --out "^ +1 +1 +1 +10 +[0-9.]+ +[0-9.]+$" --out "^ +2 +1 +1 +1 +[0-9.]+ +1\\.0000$"
  -- ${PAS2P} simulate --full-trace ${W}/app_cg --platform ${CMAKE_SOURCE_DIR}/platforms/gbe-cluster.xml
  --sweep lat=10:1 -o ${W}/sim-sweep-full)
set_tests_properties(simulate_sweep_full_trace PROPERTIES FIXTURES_REQUIRED app_cg)
# the exit-code contract (tracer/pas2p_cli.h) of the pipeline's commands, show and calibrate:
# 2 for a bad command line or input file, 0 for --help
add_test(NAME pipeline_exit_codes COMMAND bash -c [=[
  p=$1 d=$2 w=$3 bad=0
  rm -rf "$w"
  check() { want=$1; shift; "$@" >"$w.out" 2>&1; got=$?
    [[ $got == "$want" ]] || { echo "exit $got, want $want: $*"; cat "$w.out"; bad=1; }; }
  check 2 "$p" show "$d/no-such.xml"
  check 2 "$p" show
  check 2 "$p" predict "$d/no-such.xml" -- true
  check 2 "$p" predict "$d/closed-form.sig.xml" --occurrences 99 -- true
  check 2 "$p" predict "$d/closed-form.sig.xml" --rare-after 2 -- true
  check 2 "$p" replay "$d/closed-form.sig.xml" --compute fast -- mpirun -np 2
  check 2 "$p" replay "$d/closed-form.sig.xml" extra -- mpirun -np 2
  check 2 "$p" simulate "$d/closed-form.sig.xml" --platform "$d/one-link.xml" --map diagonal
  check 2 "$p" simulate "$d/closed-form.sig.xml" --platform "$d/no-such-platform.xml" -o "$w"
  check 2 "$p" calibrate --seconds 0
  for c in show predict replay simulate calibrate; do check 0 "$p" $c --help; done
  exit $bad]=] codes ${PAS2P} ${D} ${W}/exit-codes)
