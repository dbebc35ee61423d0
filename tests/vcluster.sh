#!/usr/bin/env bash
# vcluster.sh BUILD_DIR PAS2P: the virtual cluster tool (validation/vcluster) for real.
#  - bad input: one line and exit 2 (usage) or 1 (no such cluster); without root: exit 77;
#  - up: 2 nodes joined over a bridge, links shaped by tc tbf, a cgroup cpu quota per node;
#    up on an existing name fails;
#  - mpirun: one rank per node, each in its own namespace, cgroup, hostname and core, over TCP;
#  - platform: SimGrid loads it, the bandwidth it measured is below the shaped rate, and
#    `pas2p simulate` predicts on it;
#  - down after a killed run: the processes left in the nodes, the namespaces and the
#    cgroups are all removed.
# Exit 77 (ctest: skipped) where the machine does not allow namespaces or cgroup quotas.
set -u
build=$1 pas2p=$2
here=$(cd "$(dirname "$0")" && pwd)
vc=$here/../validation/vcluster/vcluster
name=tvc
export VCLUSTER_PAS2P=$build/bin/pas2p OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d)
trap '"$vc" down $name >/dev/null 2>&1; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# expect RC LINES CMD...: exit status RC and (LINES=1) a one-line stderr
expect() {
  local rc=$1 one=$2; shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"; local got=$?
  ((got == rc)) || fail "$* exited $got, not $rc: $(cat "$tmp/err")"
  if ((one)) && [[ $(grep -c '' "$tmp/err") != 1 ]]; then fail "$*: not a one-line error: $(cat "$tmp/err")"; fi
}

# bad input, before anything exists
expect 2 1 "$vc"
expect 2 1 "$vc" frobnicate
expect 2 1 "$vc" up Bad-Name --nodes 2 --bandwidth 1gbit
expect 2 1 "$vc" up $name --nodes 0 --bandwidth 1gbit
expect 2 1 "$vc" up $name --nodes 2 --bandwidth fast
expect 2 1 "$vc" up $name --nodes 2 --bandwidth 1gbit --cpu 2
expect 2 1 "$vc" up $name --nodes 2 --bandwidth 1gbit --colour blue
expect 2 1 "$vc" up $name --nodes 2 --bandwidth 1gbit --period 500
expect 2 1 "$vc" up $name --nodes 2 --bandwidth 1gbit --cpu 0.1 --period 5000 # a 500 us quota
expect 1 1 "$vc" mpirun nosuch -np 1 true
grep -q "no cluster 'nosuch'" "$tmp/err" || fail "mpirun on a missing cluster: $(cat "$tmp/err")"
if command -v setpriv >/dev/null; then # not root: skipped (a copy that user 65534 can read)
  mkdir -p "$tmp/pub" && cp "$vc" "$tmp/pub/vcluster" && chmod 755 "$tmp" "$tmp/pub" "$tmp/pub/vcluster"
  expect 77 1 setpriv --reuid=65534 --regid=65534 --clear-groups "$tmp/pub/vcluster" up $name --nodes 2 --bandwidth 1gbit
  grep -q "skipped: needs root" "$tmp/err" || fail "not root: $(cat "$tmp/err")"
fi
"$vc" --help | grep -q "vcluster up NAME --nodes N" || fail "--help"

# up (or skip where the machine cannot)
"$vc" down $name >/dev/null 2>&1
"$vc" up $name --nodes 2 --bandwidth 100mbit --cpu 0.5 >"$tmp/out" 2>"$tmp/err"
rc=$?
((rc == 77)) && { cat "$tmp/err"; exit 77; }
((rc == 0)) || fail "up: exit $rc: $(cat "$tmp/err")"
expect 1 1 "$vc" up $name --nodes 2 --bandwidth 100mbit
grep -q "exists already" "$tmp/err" || fail "up twice: $(cat "$tmp/err")"
"$vc" list | grep -q "^$name: 2 nodes x 1 slots, 100mbit, cpu 0.5" || fail "list: $("$vc" list)"
for i in 0 1; do
  tc -n pas2p-$name-n$i qdisc show dev eth0 | grep -q "tbf.*rate 100Mbit" || fail "n$i: no tbf at 100Mbit"
  tc -n pas2p-$name-sw qdisc show dev p$i | grep -q "tbf.*rate 100Mbit" || fail "switch port $i: no tbf"
  q=$(cat /sys/fs/cgroup/cpu/pas2p-vcluster/$name/n$i/cpu.cfs_quota_us)
  p=$(cat /sys/fs/cgroup/cpu/pas2p-vcluster/$name/n$i/cpu.cfs_period_us)
  ((q * 2 == p)) || fail "n$i: cpu quota $q/$p, not half a core"
  ((p == 5000)) || fail "n$i: cfs period $p us, not the default 5000"
done

# mpirun: each rank on its own node (hostname, network namespace, cgroup)
"$vc" mpirun $name -np 2 sh -c 'echo "$(hostname) $(ip -o -4 addr show eth0 | awk "{print \$4}") $(grep -o "pas2p-vcluster/[a-z0-9]*/n[0-9]*" /proc/self/cgroup | head -1)"' \
  >"$tmp/ranks" 2>"$tmp/err" || fail "mpirun: $(cat "$tmp/err")"
sort "$tmp/ranks" >"$tmp/ranks.sorted"
printf '%s\n' "$name-n0 10.199.0.10/24 pas2p-vcluster/$name/n0" "$name-n1 10.199.0.11/24 pas2p-vcluster/$name/n1" |
  diff - "$tmp/ranks.sorted" >/dev/null || fail "ranks not one per node: $(cat "$tmp/ranks")"
# each node's processes pinned to its own core (mod the machine's cores), as `up` says
n=$(nproc)
"$vc" mpirun $name -np 2 sh -c 'echo "$(hostname) $(taskset -pc $$ | sed "s/.*: //")"' >"$tmp/pins" 2>"$tmp/err" ||
  fail "mpirun (pins): $(cat "$tmp/err")"
printf '%s\n' "$name-n0 0" "$name-n1 $((1 % n))" | diff - <(sort "$tmp/pins") >/dev/null ||
  fail "nodes not pinned to cores 0 and $((1 % n)): $(cat "$tmp/pins")"
# an MPI exit status comes back
"$vc" mpirun $name -np 2 sh -c 'exit 3' >/dev/null 2>&1 && fail "a failing program's mpirun exited 0"

# platform: measured, loadable, the shaping is real
"$vc" platform $name -o "$tmp/p.xml" 2>"$tmp/err" || fail "platform: $(cat "$tmp/err")"
grep -q 'prefix="tvc-n" radical="0-1"' "$tmp/p.xml" || fail "platform: $(cat "$tmp/p.xml")"
# the bulk segment's factor (the largest messages: the piecewise model's last pair)
f=$(grep -o 'smpi/bw-factor" value="[^"]*' "$tmp/p.xml" | sed 's/.*;[0-9]*://')
awk -v f="$f" 'BEGIN{exit !(f > 0.5 && f <= 1.05)}' || fail "bulk bandwidth / 100 Mbit = $f: the link is not shaped"
"$pas2p" simulate "$here/data/closed-form.sig.xml" --platform "$tmp/p.xml" -o "$tmp/sim" >"$tmp/out" 2>&1 ||
  fail "simulate on the vcluster platform: $(tail -3 "$tmp/out")"
grep -Eq "^PET = [0-9.]+ s" "$tmp/out" || fail "simulate: no PET: $(cat "$tmp/out")"

# a killed run leaves processes in the nodes; down removes them and everything else
"$vc" mpirun $name -np 2 sleep 317 >/dev/null 2>&1 &
launcher=$!
for _ in $(seq 50); do [[ -n $(ip netns pids pas2p-$name-n1 2>/dev/null) ]] && break; sleep 0.2; done
[[ -n $(ip netns pids pas2p-$name-n1) ]] || fail "the run did not start on n1"
kill -9 $launcher
wait $launcher 2>/dev/null
"$vc" down $name >"$tmp/out" 2>&1 || fail "down: $(cat "$tmp/out")"
ip netns list | grep -q "pas2p-$name-" && fail "down left namespaces: $(ip netns list)"
[[ -d /sys/fs/cgroup/cpu/pas2p-vcluster/$name ]] && fail "down left the cgroup"
pgrep -f "sleep 317" >/dev/null && fail "down left the ranks running"
"$vc" down $name | grep -q "nothing to remove" || fail "second down"
echo "ok: vcluster up, mpirun, platform, down"
