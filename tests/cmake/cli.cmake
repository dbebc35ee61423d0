# src/: the front end (dispatch) and its command-line kit (pas2p_cli.h)

# ---- bad input: one-line error naming the thing, non-zero exit, no hang
add_test(NAME bad_command COMMAND ${EXPECT} --fail --one-line --out "unknown command 'frobnicate'"
  -- ${PAS2P} frobnicate)
