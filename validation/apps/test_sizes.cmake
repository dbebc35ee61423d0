# Test-size runs of the bundled applications, used by tests/CMakeLists.txt (each < 1 s).
# PAS2P_APP_<app>_NP: ranks; PAS2P_APP_<app>_ARGS: SIZE ITERS.  See README.md here.
set(PAS2P_APP_TESTS stencil2d cg wavefront)
set(PAS2P_APP_stencil2d_NP 4)
set(PAS2P_APP_stencil2d_ARGS 64 20)
set(PAS2P_APP_cg_NP 4)
set(PAS2P_APP_cg_ARGS 64 20)
set(PAS2P_APP_wavefront_NP 4)
set(PAS2P_APP_wavefront_ARGS 32 4)
