#!/usr/bin/env bash
# Runs a small CP2K Born-Oppenheimer MD of one water molecule (h2o_md.inp here) with the CP2K
# of the Debian package 'cp2k' (/usr/bin/cp2k.psmp, built against Open MPI; its basis sets
# and pseudopotentials come with cp2k-data in /usr/share/cp2k).
#
#   bash validation/cp2k/run.sh [-np NP] [-steps STEPS] [-- LAUNCHER...]
#     NP       MPI ranks (default 2)
#     STEPS    MD steps (default 6: ~13 s at np 2 on this 2-core VM when it is quiet)
#     LAUNCHER the MPI launcher and its options (default: mpirun); -np NP is appended
#   e.g. pas2p trace -o /tmp/cp2k -- bash validation/cp2k/run.sh -np 2
#
# CP2K writes its output and restart files into a temporary directory (removed at the end)
# and runs with one OpenMP thread per rank; the script prints "time = <s> s" (CP2K's own
# total time).  Exit status: CP2K's, or 1 with a one-line reason when the binary is missing
# or CP2K printed no total time.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
np=2 steps=6
launcher=()
while (($#)); do
  case $1 in
    -np) np=$2; shift 2 ;;
    -steps) steps=$2; shift 2 ;;
    --) shift; launcher=("$@"); break ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
((${#launcher[@]})) || launcher=(mpirun)
cp2k=${CP2K:-$(command -v cp2k.psmp || command -v cp2k || true)}
if [[ -z $cp2k ]]; then
  echo "run.sh: no CP2K binary (cp2k.psmp) on PATH: install the Debian package 'cp2k'" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sed "s/^@SET STEPS .*/@SET STEPS $steps/" "$here/h2o_md.inp" > "$work/h2o_md.inp"
rc=0
(cd "$work" && OMP_NUM_THREADS=1 "${launcher[@]}" -np "$np" -x OMP_NUM_THREADS=1 "$cp2k" \
   -i h2o_md.inp -o h2o_md.out) || rc=$?
((rc == 0)) || exit "$rc"
t=$(awk '$1 == "CP2K" && NF == 7 {print $NF}' "$work/h2o_md.out" | tail -1)
[[ -n $t ]] || { echo "run.sh: CP2K printed no total time" >&2; exit 1; }
echo "time = $t s"
