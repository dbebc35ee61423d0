#!/usr/bin/env bash
# MPICH where Open MPI is expected, with one line naming it (BAGEL, Debian's `bagel`, is
# built on MPICH): pas2p intercepts Open MPI's MPI, so
#  1. a launcher that resolves to MPICH's (mpirun -> mpiexec.hydra, as Debian's mpirun
#     alternative can) is refused before anything runs, by name, for trace, predict and
#     replay (it used to get Open MPI's -x options: "match_arg: unrecognized argument x");
#  2. a program linked to MPICH's library (ldd: libmpich), whose ranks abort in their first
#     call under libpas2p, is named when its launch leaves no trace (it used to read "before
#     any rank called MPI_Init with libpas2p").
# Stand-ins: no MPICH is needed (a script named mpiexec.hydra, a fake ldd on PATH, a launcher
# that fails as MPICH's ranks do).
# usage: foreign_mpi.sh PAS2P WORKDIR APP -- MPIRUN...   (APP: the bundled stencil2d)
set -uo pipefail
pas2p=$1 work=$2 app=$3
shift 4
fail() { echo "FAIL: $*" >&2; exit 1; }
d=$work/foreign-mpi
rm -rf "$d"; mkdir -p "$d/bin"
"$pas2p" trace -o "$d/base" -- "$@" -np 2 "$app" 64 20 >/dev/null 2>&1 || fail "the base trace"
"$pas2p" analyze "$d/base" -o "$d/s.xml" >/dev/null 2>&1 || fail "the base analysis"
printf '#!/bin/sh\necho "match_arg: unrecognized argument x" >&2\nexit 255\n' >"$d/bin/mpiexec.hydra"
chmod +x "$d/bin/mpiexec.hydra"
ln -s mpiexec.hydra "$d/bin/mpirun"
for cmd in trace predict replay; do
  case $cmd in
    trace) args=(trace -o "$d/t") ;;
    predict) args=(predict "$d/s.xml" -o "$d/p") ;;
    replay) args=(replay "$d/s.xml" -o "$d/r") ;;
  esac
  [[ $cmd == replay ]] && a=() || a=("$app" 64 20)
  out=$(PATH="$d/bin:$PATH" timeout 60 "$pas2p" "${args[@]}" -- mpirun -np 2 "${a[@]}" 2>&1)
  rc=$?
  echo "$cmd: rc $rc: $out"
  ((rc != 0)) && grep -q "mpirun is MPICH's launcher (.*/mpiexec.hydra): pas2p works with Open MPI" <<<"$out" ||
    fail "$cmd: MPICH's launcher not named"
  ! grep -q "unrecognized argument" <<<"$out" || fail "$cmd: the launcher ran"
done
# 2. a program linked to MPICH: the launch fails (exit 5, as MPICH's ranks do), ldd says so
rm -f "$d/bin/mpirun" "$d/bin/mpiexec.hydra"
printf '#!/bin/sh\necho "internal_Comm_rank: Invalid communicator" >&2\nexit 5\n' >"$d/bin/mpirun"
printf '#!/bin/sh\nexit 0\n' >"$d/bin/mpichapp"
cat >"$d/bin/ldd" <<'EOF2'
#!/bin/sh
case $2 in
  */mpichapp) echo "	libmpich.so.12 => /usr/lib/x86_64-linux-gnu/libmpich.so.12 (0x0)" ;;
  *) echo "	libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x0)" ;;
esac
EOF2
chmod +x "$d/bin/mpirun" "$d/bin/mpichapp" "$d/bin/ldd"
out=$(PATH="$d/bin:$PATH" timeout 60 "$pas2p" trace -o "$d/t2" -- mpirun -np 2 mpichapp 2>&1)
rc=$?
echo "MPICH program: rc $rc: $out"
((rc == 5)) && grep -q "mpichapp is linked to MPICH (ldd: libmpich), and pas2p works with Open MPI" <<<"$out" ||
  fail "an MPICH program not named"
# and an Open MPI program whose launch fails keeps the general message
out=$(PATH="$d/bin:$PATH" timeout 60 "$pas2p" trace -o "$d/t3" -- mpirun -np 2 "$app" 2>&1)
rc=$?
echo "Open MPI program, failed launch: rc $rc: $out"
((rc == 5)) && grep -q "the launch failed (exit status 5; its message above)" <<<"$out" &&
  ! grep -q "MPICH" <<<"$out" || fail "an Open MPI program taken for MPICH's"
echo "foreign_mpi: ok"
