# The bundled applications (validation/apps) traced at test size, and LAMMPS

# ---- the bundled applications, traced at test size (validation/apps/sizes.txt)
foreach(line IN LISTS size_lines)
  string(REPLACE "|" ";" fields "${line}")
  list(GET fields 0 app)
  list(GET fields 1 np)
  list(GET fields 2 args)
  string(STRIP "${app}" app)
  string(STRIP "${np}" np)
  separate_arguments(args UNIX_COMMAND "${args}")
  add_test(NAME app_${app}_trace
    COMMAND ${EXPECT} --clean ${W}/app_${app} --out "verification = OK" --out "^events = [0-9]+"
            -- ${PAS2P} trace -o ${W}/app_${app} -- ${MPIRUN} -np ${np}
               $<TARGET_FILE:${app}> ${args})
  set_tests_properties(app_${app}_trace PROPERTIES FIXTURES_SETUP app_${app})
  pas2p_check(app_${app} sane $<TARGET_FILE:check_trace> sane ${W}/app_${app})
endforeach()

# exact per-rank call counts of two applications (formulas in their source headers)
pas2p_check(app_ftn_ring counts $<TARGET_FILE:check_trace> counts ${W}/app_ftn_ring
  "MPI_Init=1,MPI_Finalize=1,MPI_Comm_split=1,MPI_Comm_free=1,MPI_Barrier=2,MPI_Send=50,MPI_Recv=50,MPI_Irecv=100,MPI_Isend=100,MPI_Waitall=50,MPI_Allreduce=52,MPI_Reduce=51,MPI_Bcast=50,*=509")
pas2p_check(app_stencil2d counts $<TARGET_FILE:check_trace> counts ${W}/app_stencil2d
  "MPI_Init=1,MPI_Finalize=1,MPI_Barrier=1,MPI_Allreduce=13,MPI_Irecv=200,MPI_Isend=200,MPI_Waitall=100,MPI_Reduce=1,*=517")

# ---- issue 19 applications (apps branch)
# The three bundled applications with the patterns of real codes (validation/apps/README.md),
# run untraced at test size: each must print "verification = OK" and exit 0 (their traced runs
# at np 4 are the app_<name>_* tests generated from sizes.txt above). adi's pipelines differ
# with the process grid (np 2: 2x1x1, only x; np 4: 2x2x1, x and y), so it runs at both.
foreach(run adi:2:24,10 adi:4:24,10 md:2:40,100 fftlike:2:128,6) # app:np:args
  string(REGEX REPLACE "[:,]" ";" f "${run}")
  list(GET f 0 app)
  list(GET f 1 np)
  list(SUBLIST f 2 -1 args)
  add_test(NAME app_${app}_np${np} COMMAND ${EXPECT} --out "^app = ${app}$" --out "^np = ${np}$"
    --out "^verification = OK$" -- ${MPIRUN} -np ${np} $<TARGET_FILE:${app}> ${args})
endforeach()
# LAMMPS (Debian package 'lammps', installed by scripts/setup.sh) at its tiny size (500 atoms,
# 100 steps) under pas2p trace, then pas2p analyze: a real code's trace must give a signature.
# A missing lmp is a failure with the reason, not a skip.
add_test(NAME lammps_trace_analyze COMMAND bash -c [=[
  pas2p=$1 dir=$2 run=$3; shift 3
  command -v lmp >/dev/null || { echo "lammps_trace_analyze: no LAMMPS binary 'lmp' on PATH: install the Debian package 'lammps' (bash scripts/setup.sh)"; exit 1; }
  rm -rf "$dir"
  "$pas2p" trace -o "$dir" -- bash "$run" -np 2 -steps 100 -box 0.25 -- "$@" >"$dir.out" 2>&1 \
    || { echo "lammps_trace_analyze: pas2p trace failed:"; tail -20 "$dir.out"; exit 1; }
  grep -q "^atoms = 500$" "$dir.out" || { echo "lammps_trace_analyze: LAMMPS did not run 500 atoms:"; tail -20 "$dir.out"; exit 1; }
  "$pas2p" analyze "$dir" >"$dir.analyze" 2>&1 || { echo "lammps_trace_analyze: pas2p analyze failed:"; cat "$dir.analyze"; exit 1; }
  grep -E "^(phases|relevant phases|coverage|PETE) = " "$dir.analyze"
  grep -Eq "^relevant phases = [1-9]" "$dir.analyze" || { echo "lammps_trace_analyze: no relevant phases"; exit 1; }
  ]=] lammps ${PAS2P} ${W}/lammps ${PROJECT_SOURCE_DIR}/validation/lammps/run.sh ${MPIRUN})
# ... and through every path the way a user runs it, through its launch script: analyze and
# its --mpi mode, simulate within 5 % of the full trace (ranks on two hosts), replay,
# predict, export, report (tests/lammps_paths.sh)
add_test(NAME lammps_every_path COMMAND bash ${T}/lammps_paths.sh ${PAS2P}
  ${CMAKE_SOURCE_DIR}/platforms/gbe-cluster.xml ${W}/lammps-paths
  ${PROJECT_SOURCE_DIR}/validation/lammps/run.sh -- ${MPIRUN})
