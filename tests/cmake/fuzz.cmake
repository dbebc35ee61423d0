# Fuzzing the readers: deterministic mutation fuzzers (both builds) and libFuzzer harnesses
# (the sanitizer build only)

# mutation fuzzing of the reader on a real rank file (the probe's): never a crash or hang
add_executable(fuzz_reader unit/fuzz_reader.c)
target_link_libraries(fuzz_reader PRIVATE pas2p_format)
add_test(NAME fuzz_reader COMMAND fuzz_reader ${W}/probe/rank-00000.p2t 3000)
set_tests_properties(fuzz_reader PROPERTIES FIXTURES_REQUIRED probe)
# mutation fuzzing of the signature reader on a real signature (stencil2d's, signature.cmake)
add_executable(fuzz_signature unit/fuzz_signature.c)
target_link_libraries(fuzz_signature PRIVATE pas2p_signature)
add_test(NAME fuzz_signature COMMAND fuzz_signature ${W}/stencil-sig.xml 400)
set_tests_properties(fuzz_signature PROPERTIES FIXTURES_REQUIRED signature)

# libFuzzer (issue "Analyzer": fuzz the trace reader and the signature reader, briefly in
# CI): in the sanitizer build, the readers' sources compiled again by clang with
# -fsanitize=fuzzer,address,undefined (the project's own build may be gcc, whose ASan
# runtime does not mix with clang's), each run for 20 s from a real file as its seed.
# Findings (crash, hang > 10 s, leak, disagreement) fail the test and leave crash-*
# inputs in the build's tests/work/lf-* directory.  The mutation fuzzers above run in
# both builds; these need clang (scripts/setup.sh installs it).
if(PAS2P_SANITIZE)
  find_program(PAS2P_CLANG NAMES clang clang-14)
  if(NOT PAS2P_CLANG)
    message(FATAL_ERROR "pas2p: clang not found (libFuzzer harnesses of the sanitizer build): "
                        "install the Debian packages 'clang libclang-rt-dev' (or run: bash scripts/setup.sh)")
  endif()
  set(lf_flags -std=c11 -g -O1 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined
      -fno-sanitize-recover=undefined -I${PROJECT_SOURCE_DIR}/tracer -I${PROJECT_BINARY_DIR}/tracer/gen)
  set(lf_trace_src ${PROJECT_SOURCE_DIR}/tracer/format.c ${PROJECT_BINARY_DIR}/tracer/gen/pas2p_calls.c)
  set(lf_sig_src ${PROJECT_SOURCE_DIR}/signature/signature.c ${PROJECT_SOURCE_DIR}/signature/pet.c
      ${PROJECT_SOURCE_DIR}/signature/prediction.c ${PROJECT_SOURCE_DIR}/signature/xml.c)
  add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/bin/lf_reader
    COMMAND ${PAS2P_CLANG} ${lf_flags} -o ${CMAKE_BINARY_DIR}/bin/lf_reader
            ${T}/fuzz/lf_reader.c ${lf_trace_src}
    DEPENDS fuzz/lf_reader.c ${lf_trace_src} COMMENT "clang libFuzzer: lf_reader")
  add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/bin/lf_signature
    COMMAND ${PAS2P_CLANG} ${lf_flags} ${LIBXML2_CFLAGS} -I${PROJECT_SOURCE_DIR}/signature
            -I${PROJECT_BINARY_DIR}/signature/gen -o ${CMAKE_BINARY_DIR}/bin/lf_signature
            ${T}/fuzz/lf_signature.c ${lf_sig_src} ${lf_trace_src} ${LIBXML2_LDFLAGS} -lm
    DEPENDS fuzz/lf_signature.c ${lf_sig_src} ${lf_trace_src} COMMENT "clang libFuzzer: lf_signature")
  add_custom_target(libfuzzers ALL DEPENDS ${CMAKE_BINARY_DIR}/bin/lf_reader ${CMAKE_BINARY_DIR}/bin/lf_signature)
  add_dependencies(libfuzzers pas2p_format pas2p_signature) # their generated sources and headers
  foreach(lf reader signature)
    set(seed ${W}/probe/rank-00000.p2t)
    set(fixture probe)
    if(lf STREQUAL signature)
      set(seed ${W}/stencil-sig.xml)
      set(fixture signature)
    endif()
    add_test(NAME libfuzzer_${lf} COMMAND bash -c
      "rm -rf \"$1\" && mkdir -p \"$1/corpus\" && cp \"$2\" \"$1/corpus/\" && cd \"$1\" && exec \"$3\" -max_total_time=20 -timeout=10 -rss_limit_mb=2048 -seed=1 -print_final_stats=1 corpus"
      lf ${W}/lf-${lf} ${seed} ${CMAKE_BINARY_DIR}/bin/lf_${lf})
    set_tests_properties(libfuzzer_${lf} PROPERTIES FIXTURES_REQUIRED ${fixture} TIMEOUT 120
      ENVIRONMENT "ASAN_OPTIONS=detect_leaks=1;UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
  endforeach()
endif()
