#!/usr/bin/env bash
# noisy_launcher.sh: a stand-in launcher for test predict_relay_teardown_noise.  It prints
# what Open MPI's launcher may print while a job pas2p ends is torn down (its event
# library's warning about a rank's socket already closed) and one line of the program's
# own, then fails as a job with no rank would.  The relay (tracer/launch.c) must drop the
# first and pass the second.
echo "[warn] Epoll MOD(1) on fd 26 failed. Old events were 6; read change was 0 (none); write change was 2 (del); close change was 0 (none): Bad file descriptor" >&2
echo "a line of the program" >&2
exit 3
