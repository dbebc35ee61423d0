# the front end (src/: dispatch) and its command-line kit (tracer/pas2p_cli.h)

# ---- bad input: one-line error naming the thing, non-zero exit, no hang
add_test(NAME bad_command COMMAND ${EXPECT} --fail --one-line --out "unknown command 'frobnicate'"
  -- ${PAS2P} frobnicate)
# an option the command does not have, before the launched command: named as an option
add_test(NAME bad_option COMMAND ${EXPECT} --fail --one-line
  --out "pas2p predict: unknown option '--to-the-end' \\(see --help; the launched command goes after --\\)"
  -- ${PAS2P} predict sig.xml --to-the-end -- mpirun -np 2 ./app)

# ---- unit tests of the command-line kit (tracer/pas2p_cli.h: every option kind, ranges, --, help)
add_executable(test_cli unit/test_cli.c)
target_link_libraries(test_cli PRIVATE pas2p_cli PkgConfig::CMOCKA)
add_test(NAME unit_cli COMMAND test_cli)

# ---- docs/CLI.md carries every command's --help verbatim (the contract's one copy)
add_test(NAME cli_doc_help COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli_doc.sh $<TARGET_FILE:pas2p>
         ${PROJECT_SOURCE_DIR}/docs/CLI.md)
