# validation/: the virtual clusters and the PET-vs-AET experiment

# validation/vcluster (namespaces, tc, cgroup quotas, Open MPI across them) and the CI subset of
# the PET-vs-AET experiment (validation/experiment.sh --quick).  They need root, network
# namespaces and the cgroup-v1 cpu controller: skipped (exit 77) on a machine without them.
add_test(NAME vcluster COMMAND bash ${T}/vcluster.sh ${CMAKE_BINARY_DIR} ${PAS2P})
add_test(NAME experiment_quick COMMAND bash ${T}/experiment_quick.sh ${CMAKE_BINARY_DIR} ${W}/experiment)
set_tests_properties(vcluster experiment_quick PROPERTIES SKIP_RETURN_CODE 77 RUN_SERIAL TRUE TIMEOUT 300
  ENVIRONMENT "${test_env}") # the MPI and sanitizer settings: they run this build's programs

# the experiment's statistics and its page (validation/experiment_report.py), without a
# cluster: the bootstrap on samples with known answers, and the page of a small fixture
# (tests/data/experiment) rendered by headless Chromium
add_test(NAME experiment_stats COMMAND ${Python3_EXECUTABLE} ${T}/experiment_stats.py)
add_test(NAME experiment_page COMMAND bash ${T}/experiment_page.sh ${PAS2P} ${W}/experiment_page)
set_tests_properties(experiment_page PROPERTIES TIMEOUT 200)
