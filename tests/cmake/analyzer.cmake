# analyzer/: phases, weights, relevance, the logical trace, the MPI mode: `pas2p analyze`

# ---- unit tests
add_executable(test_phases unit/test_phases.c)
target_link_libraries(test_phases PRIVATE pas2p_analyzer PkgConfig::CMOCKA m)
add_test(NAME unit_phases COMMAND test_phases)
add_executable(test_global unit/test_global.c)
target_link_libraries(test_global PRIVATE pas2p_analyzer PkgConfig::CMOCKA m)
add_test(NAME unit_global COMMAND test_global)
add_executable(test_pack unit/test_pack.c)
target_link_libraries(test_pack PRIVATE pas2p_analyzer PkgConfig::CMOCKA)
add_test(NAME unit_pack COMMAND test_pack)
add_executable(test_logical unit/test_logical.c)
target_link_libraries(test_logical PRIVATE pas2p_analyzer PkgConfig::CMOCKA)
add_test(NAME unit_logical COMMAND test_logical)

# ---- bad input: damaged traces (made by damage.sh in tracer.cmake), analysed
add_test(NAME bad_analyze_missing_rank COMMAND ${EXPECT} --fail --one-line
  --out "rank-00002.p2t: cannot open" -- ${PAS2P} analyze ${W}/damaged-missing)
add_test(NAME bad_analyze_np_mismatch COMMAND ${EXPECT} --fail --one-line
  --out "rank-00000.p2t: rank 0 of a run of 4 ranks, but the manifest says 3 ranks"
  -- ${PAS2P} analyze ${W}/damaged-np)
set_tests_properties(bad_analyze_np_mismatch PROPERTIES FIXTURES_REQUIRED damaged_np)
add_test(NAME bad_analyze_other_version COMMAND ${EXPECT} --fail --one-line
  --out "version 3, this pas2p reads version 2" -- ${PAS2P} analyze ${W}/damaged-version)
add_test(NAME analyze_truncated COMMAND ${EXPECT} --rc 3 --out "rank-00000.p2t: truncated: [0-9]+ complete events.*analysed the complete part"
  --out "^PET = " --out "^signature = " --out "^note: 1 rank file\\(s\\) cut short, analysed to their last complete event.*exit 3"
  -- ${PAS2P} analyze ${W}/damaged-truncate)
add_test(NAME bad_analyze_truncated_strict COMMAND ${EXPECT} --fail --one-line
  --out "rank-00000.p2t: truncated" -- ${PAS2P} analyze --strict ${W}/damaged-truncate)
add_test(NAME bad_analyze_not_a_trace COMMAND ${EXPECT} --fail --one-line --out "manifest"
  -- ${PAS2P} analyze ${CMAKE_CURRENT_SOURCE_DIR})
add_test(NAME analyze_boundary COMMAND ${EXPECT} --rc 3
  --out "the manifest says the rank wrote [0-9]+; analysed the complete part" --out "^PET = "
  --out "^note: 1 rank file\\(s\\) cut short" -- ${PAS2P} analyze ${W}/damaged-boundary)
add_test(NAME bad_analyze_boundary_strict COMMAND ${EXPECT} --fail --one-line
  --out "rank-00000.p2t: truncated" -- ${PAS2P} analyze --strict ${W}/damaged-boundary)
set_tests_properties(analyze_boundary bad_analyze_boundary_strict PROPERTIES
  FIXTURES_REQUIRED damaged_boundary)
set_tests_properties(bad_analyze_missing_rank PROPERTIES FIXTURES_REQUIRED damaged_missing)
set_tests_properties(bad_analyze_other_version PROPERTIES FIXTURES_REQUIRED damaged_version)
set_tests_properties(analyze_truncated bad_analyze_truncated_strict PROPERTIES
  FIXTURES_REQUIRED damaged_truncate)

# pas2p analyze on every application's trace: the phases partition each rank's time, so
# the base-machine PET (relevant phases + explicit remainder) reproduces AET
foreach(line IN LISTS size_lines)
  string(REPLACE "|" ";" fields "${line}")
  list(GET fields 0 app)
  string(STRIP "${app}" app)
  pas2p_check(app_${app} analyze ${EXPECT} --out "^PETE = [+-]0\\.0[0-9] %" --out "^TFAT = "
    --out "^relevant phases = [1-9]" -- ${PAS2P} analyze ${W}/app_${app} --jobs 2)
endforeach()
foreach(line IN LISTS size_lines)
  string(REPLACE "|" ";" fields "${line}")
  list(GET fields 0 app)
  string(STRIP "${app}" app)
  pas2p_check(app_${app} logical ${EXPECT} --out "^logical time = [0-9]+ ticks \\(global\\)"
    -- ${PAS2P} analyze ${W}/app_${app} --logical global -o ${W}/app_${app}-logical.xml)
endforeach()
pas2p_check(probe logical ${EXPECT} --out "^logical time = [0-9]+ ticks \\(global\\)"
  -- ${PAS2P} analyze ${W}/probe --logical global -o ${W}/probe-sig.xml)
# a non-blocking collective posted after a receive on one rank and before the matching
# send on the other (NBX, deal.II's consensus): the global logical clock goes on (it
# reported "the ranks wait for each other" and failed)
add_executable(nbx mpi/nbx.c)
target_link_libraries(nbx PRIVATE MPI::MPI_C)
add_test(NAME nbx_logical_global COMMAND bash -c [=[
  W=$1 pas2p=$2 prog=$3; shift 3; rm -rf "$W"; mkdir -p "$W"
  "$pas2p" trace -o "$W/t" -- "$@" -np 2 "$prog" 50 >"$W/trace.out" 2>&1 || exit 1
  "$pas2p" analyze "$W/t" --logical global -o "$W/s.xml" >"$W/out" 2>&1; rc=$?; cat "$W/out"
  ((rc == 0)) && grep -q "^logical time = [0-9]* ticks (global)" "$W/out"
  ]=] nbx_logical_global ${W}/nbx ${PAS2P} $<TARGET_FILE:nbx> ${MPIRUN})
# replay --export of a signature with a call stock SimGrid cannot replay (a non-blocking
# collective): refused in one line, and the directory it had begun is gone, so the same
# command says the same again (it said "not empty" the second time: deal.II, DOLFIN)
add_test(NAME export_refusal_clean COMMAND bash -c [=[
  pas2p=$1 sig=$2 x=$3; rm -rf "$x" "$x.xml"
  # the Iallreduce's phase relevant, as the analyzer makes it on a quiet machine (under
  # load its 1 % share may fall short, and the export then leaves it out: CI, ASan build)
  sed -E 's/(<phase id="3" weight="1" relevant=")no"/\1yes"/' "$sig" >"$x.xml"
  grep -q '<phase id="3" weight="1" relevant="yes"' "$x.xml" && grep -q 'MPI_Iallreduce' "$x.xml" || exit 1
  for k in 1 2; do
    out=$("$pas2p" replay "$x.xml" --export "$x" 2>&1); rc=$?; echo "$k: rc $rc: $out"
    ((rc == 1)) && grep -q "'iallreduce' has no SimGrid time-independent action" <<<"$out" &&
      [[ $(wc -l <<<"$out") == 1 ]] && [[ ! -e $x ]] || exit 1
  done
  ]=] export_refusal_clean ${PAS2P} ${W}/probe-sig.xml ${W}/probe-export)
set_tests_properties(export_refusal_clean PROPERTIES DEPENDS probe_logical FIXTURES_REQUIRED probe)
# ... but a phase that is not the analyzer's relevant one, which simulate and replay take for
# its share of the messages, is left out of the export with a note (its time the rest's):
# the message cover must not make an export refuse what it wrote before
add_test(NAME export_leaves_out_stock_less COMMAND bash -c [=[
  pas2p=$1 sig=$2 w=$3; rm -rf "$w"; mkdir -p "$w"
  sed -E 's/(<phase id="3" weight="1" relevant=")yes"/\1no"/' "$sig" >"$w/s.xml"
  grep -q 'MPI_Iallreduce' "$w/s.xml" && grep -q '<phase id="3" weight="1" relevant="no"' "$w/s.xml" || exit 1
  out=$("$pas2p" replay "$w/s.xml" --export "$w/x" 2>&1); rc=$?; echo "$out"
  ((rc == 0)) && grep -q "^note: 1 phase(s) .* left out of the export" <<<"$out" && [[ -x $w/x/run.sh ]] &&
    ! grep -rq "iallreduce" "$w/x"/phase-*
  ]=] export_leaves_out_stock_less ${PAS2P} ${W}/probe-sig.xml ${W}/probe-export-nr)
set_tests_properties(export_leaves_out_stock_less PROPERTIES DEPENDS probe_logical FIXTURES_REQUIRED probe)
pas2p_check(threads logical ${EXPECT} --fail --one-line --out "several threads.*--logical local"
  -- ${PAS2P} analyze ${W}/threads --logical global -o ${W}/threads-sig.xml)
# ranks that called MPI from several threads at a time: replay and simulate, which run each
# rank's calls as one sequence, refuse it before they run (PT-Scotch deadlocked SimGrid and
# hung replay to its watchdog); the signature says so (mpi_threads)
pas2p_check(threads sim_refused ${EXPECT} --fail --one-line
  --out "called MPI from 3 threads under MPI_THREAD_MULTIPLE.*pas2p predict runs"
  -- bash -c "${PAS2P} analyze ${W}/threads -o ${W}/threads-sig2.xml > /dev/null && rm -rf ${W}/threads-sim && ${PAS2P} simulate ${W}/threads-sig2.xml --platform ${CMAKE_SOURCE_DIR}/platforms/gbe-cluster.xml -o ${W}/threads-sim")
pas2p_check(threads full_refused ${EXPECT} --fail --one-line
  --out "called MPI from 3 threads under MPI_THREAD_MULTIPLE"
  -- bash -c "rm -rf ${W}/threads-full && ${PAS2P} simulate --full-trace ${W}/threads --platform ${CMAKE_SOURCE_DIR}/platforms/gbe-cluster.xml -o ${W}/threads-full")
pas2p_check(threads1 global ${EXPECT} --out "^phase table = global"
  -- ${PAS2P} analyze ${W}/threads1 -o ${W}/threads1-sig.xml)
# MPI from a helper thread under MPI_THREAD_SERIALIZED (MolDS: under MPI_THREAD_SINGLE) while
# the main thread computes: phases per rank, and the threads' overlapping computation counted
# once (the base PET is the AET; it was +31 % here, +82 % on MolDS)
pas2p_trace_test(helperthread 2 $<TARGET_FILE:helperthread>)
pas2p_check(helperthread conserved ${EXPECT} --out "^phase table = per rank .*several threads"
  --out "^PETE = [+-]0\\.00 %" -- ${PAS2P} analyze ${W}/helperthread -o ${W}/helperthread-sig.xml)
pas2p_check(app_stencil2d phases ${EXPECT} --out "^structure = identical on all ranks"
  --out "^phases = [1-8]$" --out "Irecv Irecv Isend Isend" -- ${PAS2P} analyze ${W}/app_stencil2d)
# auto granularity: wavefront's 16 k-blocks per sweep (2 planes each at N 32) fold into an
# inner loop whose first block waits for the pipeline to fill; the sweep-level phases come
# out skewed and the analyzer takes the whole iteration as the phase (phases by their calls
# alone, so that the weights do not depend on time variants: ASan's noise splits them)
add_test(NAME app_wavefront_pipeline_trace
  COMMAND ${EXPECT} --clean ${W}/wavefront-pipe --out "verification = OK"
          -- ${PAS2P} trace -o ${W}/wavefront-pipe -- ${MPIRUN} -np 4 $<TARGET_FILE:wavefront> 32 10)
set_tests_properties(app_wavefront_pipeline_trace PROPERTIES FIXTURES_SETUP wavefront_pipe)
add_test(NAME analyze_auto_granularity COMMAND ${EXPECT} --out "^granularity = coarser: .* [0-9]+ % above its median"
  --out "^inline events = (64|256)$" --out "^ +2 +129 .* 10 " -- ${PAS2P} analyze ${W}/wavefront-pipe
  --compute-similarity 0 -o ${W}/wavefront-pipe.xml)
# a fixed granularity is the ranks' own (local) phases': the k-blocks at 16 ...
add_test(NAME analyze_fixed_granularity COMMAND ${EXPECT} --out "^inline events = 16$"
  --out "^ +[0-9]+ +2 .* 160 " -- ${PAS2P} analyze ${W}/wavefront-pipe --inline-events 16
  --phases local --compute-similarity 0 -o ${W}/wavefront-pipe16.xml)
# ... while the global phases are cut after the all-rank collective every iteration makes
# (anchors that recur), whatever the granularity: the iteration, 10 times
add_test(NAME analyze_global_snaps_to_anchors COMMAND ${EXPECT} --out "^inline events = 16$"
  --out "^phases = 3$" --out "^ +2 +129 .* 10 " -- ${PAS2P} analyze ${W}/wavefront-pipe
  --inline-events 16 --compute-similarity 0 -o ${W}/wavefront-pipe16g.xml)
add_test(NAME bad_analyze_inline_events COMMAND ${EXPECT} --fail --one-line
  --out "--inline-events needs 'auto' or a number" -- ${PAS2P} analyze ${W}/wavefront-pipe --inline-events x)
# the MPI mode: the same signature from 1, 2 and 3 analyzer processes (with the auto
# granularity's agreement between them: this trace goes coarser); errors said once
add_test(NAME analyze_mpi COMMAND bash ${T}/analyze_mpi.sh ${PAS2P} ${W}/wavefront-pipe ${W} ${MPIRUN})
set_tests_properties(analyze_auto_granularity analyze_fixed_granularity analyze_global_snaps_to_anchors
  analyze_mpi PROPERTIES
  FIXTURES_REQUIRED wavefront_pipe)

# The analysis engine's decisions (analyzer/analyze.c) on synthetic phase tables: the
# automatic granularity, the representative rank and SPMD verdict, the signature built from
# every rank's phases, and the one option table of `pas2p analyze`.
add_executable(test_analyze_engine unit/test_analyze_engine.c)
target_link_libraries(test_analyze_engine PRIVATE pas2p_analyzer PkgConfig::CMOCKA m)
add_test(NAME unit_analyze_engine COMMAND test_analyze_engine)

# The thesis's per-process phases and K-means merge (validation/bench/thesis_kmeans.py, the
# benchmark the global phases are compared with): its parts on data made in the test, and the
# tool on cartsweep's test-size trace (its table; the signature's occurrences all closed).
# Skipped without python3.
find_program(PAS2P_PYTHON3 python3)
if(PAS2P_PYTHON3)
  add_test(NAME thesis_kmeans_selftest COMMAND ${EXPECT} --out "^self-test = ok$"
    -- ${PAS2P_PYTHON3} ${PROJECT_SOURCE_DIR}/validation/bench/thesis_kmeans.py --self-test)
else()
  add_test(NAME thesis_kmeans_selftest COMMAND sh -c "echo 'python3 missing: skipped'; exit 77")
endif()
pas2p_check(app_cartsweep thesis_kmeans bash ${T}/thesis_kmeans.sh ${PAS2P} ${PROJECT_SOURCE_DIR}
  ${W}/app_cartsweep ${W}/app_cartsweep-kmeans)
set_tests_properties(thesis_kmeans_selftest app_cartsweep_thesis_kmeans PROPERTIES SKIP_RETURN_CODE 77)
# MPI_THREAD_MULTIPLE with MPI calls from a helper thread: per-rank phases, decided before
# the per-rank analysis, so that it numbers every call (MPI_Probe included) as predict's
# runtime does for them (yade: the tables were numbered for global phases, without its
# probes, and every predict diverged at the first MPI_Probe)
add_executable(probemt mpi/probemt.c)
target_link_libraries(probemt PRIVATE MPI::MPI_C pthread)
add_test(NAME multithread_probes_predict COMMAND bash -c [=[
  W=$1 pas2p=$2 prog=$3; shift 3; rm -rf "$W"; mkdir -p "$W"
  "$pas2p" trace -o "$W/t" -- "$@" -np 2 "$prog" 40 >"$W/trace.out" 2>&1 || exit 1
  grep -q "^probemt: no MPI_THREAD_MULTIPLE" "$W/trace.out" && { echo "skipped: no MPI_THREAD_MULTIPLE"; exit 0; }
  "$pas2p" analyze "$W/t" -o "$W/s.xml" >"$W/an.out" || exit 1
  grep -q "^phase table = per rank .*several threads" "$W/an.out" || { cat "$W/an.out"; exit 1; }
  grep -q 'call="MPI_Probe"' "$W/s.xml" || { echo "no MPI_Probe in the per-rank signature"; exit 1; }
  for k in 1 2; do
    "$pas2p" predict "$W/s.xml" -o "$W/p$k" -- "$@" -np 2 "$prog" 40 >"$W/out$k" 2>&1
    rc=$?; cat "$W/out$k"
    ((rc == 0)) && ! grep -q "diverged" "$W/out$k" && grep -q "^PET = " "$W/out$k" || exit 1
  done
  ]=] multithread_probes_predict ${W}/probemt ${PAS2P} $<TARGET_FILE:probemt> ${MPIRUN})
