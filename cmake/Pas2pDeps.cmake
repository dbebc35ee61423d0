# Finds pas2p's dependencies the CMake way. A missing one stops configuration
# with the Debian package that provides it (scripts/setup.sh installs them all).

macro(pas2p_need found what package)
  if(NOT ${found})
    message(FATAL_ERROR "pas2p: ${what} not found: install the Debian package '${package}' "
                        "(or run: bash scripts/setup.sh)")
  endif()
endmacro()

find_package(MPI COMPONENTS C Fortran)
pas2p_need(MPI_C_FOUND "MPI (C bindings)" "libopenmpi-dev openmpi-bin")
pas2p_need(MPI_Fortran_FOUND "MPI (Fortran bindings)" "libopenmpi-dev gfortran")
find_program(PAS2P_MPIEXEC NAMES mpirun mpiexec HINTS ${MPIEXEC_EXECUTABLE})
pas2p_need(PAS2P_MPIEXEC "mpirun" "openmpi-bin")

find_package(PkgConfig)
pas2p_need(PKG_CONFIG_FOUND "pkg-config" "pkg-config")
pkg_check_modules(LIBXML2 IMPORTED_TARGET libxml-2.0)
pas2p_need(LIBXML2_FOUND "libxml2" "libxml2-dev")
pkg_check_modules(PAPI IMPORTED_TARGET papi)
pas2p_need(PAPI_FOUND "PAPI" "libpapi-dev")
pkg_check_modules(SIMGRID IMPORTED_TARGET simgrid>=3.32)
pas2p_need(SIMGRID_FOUND "SimGrid >= 3.32" "libsimgrid-dev")
if(PAS2P_TESTS)
  pkg_check_modules(CMOCKA IMPORTED_TARGET cmocka)
  pas2p_need(CMOCKA_FOUND "cmocka" "libcmocka-dev")
endif()
find_package(Python3 COMPONENTS Interpreter)
pas2p_need(Python3_Interpreter_FOUND "python3 (code generator)" "python3")
find_program(PAS2P_SMPICC smpicc)
pas2p_need(PAS2P_SMPICC "smpicc (SimGrid SMPI compiler)" "libsimgrid-dev")
find_program(PAS2P_SMPIRUN smpirun)
pas2p_need(PAS2P_SMPIRUN "smpirun" "libsimgrid-dev")
