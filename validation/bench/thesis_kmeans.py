#!/usr/bin/env python3
"""The thesis's signature method for irregular applications, as a benchmark to compare against.

    python3 validation/bench/thesis_kmeans.py TRACE_DIR [--pas2p PATH] [--signature SIG.xml]
            [--relevance F] [--similarity F] [--kmax N] [--elbow F] [--seed N] [--clusters]

A benchmark tool, not a user path: it reimplements, as far as the thesis digest
(../shared/reference/pas2p-thesis-irregular.md, sections 7.3-7.6 and 11) describes it, the
per-process phase identification and the K-means merge of PAS2P's extension for irregular
applications, on a trace read through `pas2p dump`, and measures what the global-phases issue
asks: how many phases, their coverage, and whether each cluster is communication-closed.

What it does, and the decisions the thesis leaves open (each marked DECISION):

1. Messages are matched statically by (communicator, source, destination, actual tag) in the
   order the sends were made and the receives posted (MPI's non-overtaking rule; wildcard
   receives by their recorded actual source and tag).  Collective instances are the k-th
   collective on a communicator on each member (communicator creation and freeing,
   MPI_Init and MPI_Finalize are collectives too).  Persistent requests are refused.
2. Global logical time, PAS2P's Lamport rules as analyzer/logical.c applies them (thesis 7.3):
   a send or local call takes own LT + 1; a receive max(own + 1, its send's LT + 1), a
   non-blocking receive at its completion; a collective 1 + the max over its members.
3. The characteristic communicator (7.4): among the communicators holding every rank, the
   one whose per-process phases (step 4) are the most in number over all ranks; on a tie the
   one closest to MPI_COMM_WORLD (fewest creations from WORLD), then the first created.
4. Per-process phases (7.5): each rank scans its own logical trace; only send-type events
   and collectives on the characteristic communicator are compared ("sends determine the
   behaviour of receptions"); every other event (receives, completions, sub-communicator
   calls) is accumulated into the interval of the characteristic event before it (the
   events before the first one into the first).  DECISION: "one phase is defined per tick":
   each characteristic event with its accumulated interval is one occurrence; occurrences of
   the same call whose work is >= --similarity alike (min/max) to a phase's first
   occurrence are that phase (weight + 1), otherwise they start a new phase.  The work
   measure is the instruction count (PAPI_TOT_INS) when the trace has it, else the
   computation time (compute_ns) -- the trace says which.  --similarity defaults to the
   thesis's 0.85 on instructions and to the analyzer's 0.5 on time (its measured reason:
   scheduling noise).  A phase's time is the mean over its occurrences of the events'
   computation plus call time (MPI_Init's own call excluded), as the analyzer counts it, so
   each rank's phases sum to its elapsed time.
5. Relevant phases (7.5): weight x mean time >= --relevance x AET, per process.
6. K-means (7.6) over the relevant phases of all ranks, each a point (LT of its first
   occurrence's start event, mean work of one occurrence).  DECISION: both coordinates scaled
   to [0, 1] by their range (the thesis mentions no scaling; unscaled, instructions or
   nanoseconds would swamp logical time).  k-means++ initialisation, Lloyd iterations, 10
   restarts per K, a fixed seed (--seed), K = 1 .. min(--kmax, distinct points).  DECISION,
   the elbow (no criterion is given): the smallest K after which one more cluster lowers the
   SSE by less than --elbow (default 0.05) of SSE(K=1).
7. Coverage, as the analyzer defines it (analyzer/analyze.c, pas2p_build_signature): the
   representative rank's relevant weight x mean time over AET; the representative rank as
   EPAS picks it (thesis 6.4), the preliminary PET (its relevant phases) closest to AET.
8. Closure of each cluster: the union of every occurrence of its phases on every rank is
   closed when it holds all four ends of each message it touches (send, its completion,
   receive post, its completion), every member's part of each collective instance it
   touches, and the completion of each request it starts.  That is a necessary condition
   for replaying the cluster alone (the thesis's PHASE_TABLE gives one start and end tick
   per process per cluster, so occurrences are not aligned across ranks); a cluster that
   fails it cannot be replayed alone, whatever the alignment.
9. --signature SIG.xml (a global-phases signature of the same trace, `pas2p analyze`): the
   same check on each of the first occurrences the signature lists (up to 32 per phase),
   each occurrence the slice of every rank, as an independent check of the analyzer's closure.

Prints `NAME = value` lines; --clusters adds the cluster table.  Exit 0; 1 when the trace
cannot be read or uses what this tool does not model; 2 bad usage.
"""
import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

SEND = {"MPI_Send", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend"}
ISEND = {"MPI_Isend", "MPI_Issend", "MPI_Ibsend", "MPI_Irsend"}
SENDRECV = {"MPI_Sendrecv", "MPI_Sendrecv_replace"}
COMPLETION = {"MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome",
              "MPI_Test", "MPI_Testall", "MPI_Testany", "MPI_Testsome"}
POLLS = {"MPI_Test", "MPI_Testall", "MPI_Testany", "MPI_Testsome", "MPI_Iprobe"}
PERSISTENT = {"MPI_Send_init", "MPI_Ssend_init", "MPI_Bsend_init", "MPI_Rsend_init",
              "MPI_Recv_init", "MPI_Start", "MPI_Startall", "MPI_Request_free"}
COMM_CALLS = {"MPI_Comm_dup", "MPI_Comm_split", "MPI_Comm_create", "MPI_Comm_free",
              "MPI_Cart_create", "MPI_Cart_sub", "MPI_Comm_split_type", "MPI_Comm_dup_with_info"}
COLLECTIVES = {"MPI_Barrier", "MPI_Bcast", "MPI_Reduce", "MPI_Allreduce", "MPI_Gather",
               "MPI_Gatherv", "MPI_Scatter", "MPI_Scatterv", "MPI_Allgather", "MPI_Allgatherv",
               "MPI_Alltoall", "MPI_Alltoallv", "MPI_Alltoallw", "MPI_Reduce_scatter",
               "MPI_Reduce_scatter_block", "MPI_Scan", "MPI_Exscan",
               "MPI_Init", "MPI_Init_thread", "MPI_Finalize"} | COMM_CALLS
ICOLLECTIVES = {"MPI_Ibarrier", "MPI_Ibcast", "MPI_Ireduce", "MPI_Iallreduce", "MPI_Igather",
                "MPI_Igatherv", "MPI_Iscatter", "MPI_Iscatterv", "MPI_Iallgather",
                "MPI_Iallgatherv", "MPI_Ialltoall", "MPI_Ialltoallv", "MPI_Ialltoallw",
                "MPI_Ireduce_scatter", "MPI_Ireduce_scatter_block", "MPI_Iscan", "MPI_Iexscan"}
WORLD = "WORLD"


class TraceError(Exception):
    pass


class Event:
    __slots__ = ("ord", "call", "peer", "tag", "comm", "compute", "dur", "work", "src2",
                 "tag2", "done", "new", "members", "lt", "send_lt", "flags")


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode:
        raise TraceError("%s: %s" % (" ".join(cmd), (p.stderr.strip().splitlines() or ["failed"])[-1]))
    return p.stdout


def num(s):
    return int(s) if re.fullmatch(r"-?\d+", s) else None


def read_trace(pas2p, tdir):
    """(np, aet_s, counters, [events of rank r])"""
    summ = run([pas2p, "dump", tdir])
    kv = dict(re.findall(r"^(\w+) = (.*)$", summ, re.M))
    try:
        np_, aet = int(kv["np"]), float(kv["AET"].split()[0])
    except (KeyError, ValueError):
        raise TraceError("%s: no np or AET in `pas2p dump`'s summary" % tdir)
    counters = kv.get("counters", "none").split()
    if kv.get("thread_level") == "MPI_THREAD_MULTIPLE":
        raise TraceError("%s: traced under MPI_THREAD_MULTIPLE, whose threads' events interleave "
                         "in a rank's order: not modelled" % tdir)
    ranks = []
    for r in range(np_):
        out = run([pas2p, "dump", tdir, "--rank", str(r)])
        ncnt = 0
        m = re.search(r"^# rank \d+ of \d+ .*counters:(.*)$", out, re.M)
        if m and m.group(1).strip() != "none":
            ncnt = len(m.group(1).split())
        evs = []
        for line in out.splitlines():
            if not line or line[0] == "#":
                continue
            f = line.split()
            e = Event()
            e.ord, e.call = int(f[0]), f[1]
            e.peer, e.tag, e.comm = num(f[2]), num(f[3]), f[4]
            e.compute, e.dur = int(f[6]), int(f[7])
            if e.call in ("MPI_Init", "MPI_Init_thread"):
                e.dur = 0  # the AET window starts when MPI_Init returns
            rest = f[8:]
            instr = int(rest[0]) if ncnt else None
            rest = rest[ncnt:]
            e.work = instr if (instr is not None and counters[:1] == ["PAPI_TOT_INS"]) else e.compute
            e.src2 = e.tag2 = None
            e.done, e.new, e.members = [], None, None
            e.flags = set()
            for tok in rest:
                k, _, v = tok.partition("=")
                if not _:
                    e.flags.add(tok)
                elif k == "from":
                    e.src2 = num(v)
                elif k == "rtag":
                    e.tag2 = num(v)
                elif k == "new":
                    e.new = v
                elif k == "members":
                    e.members = [int(x) for x in v.split(",")]
                elif k == "done":
                    # post[.index][(src=S,tag=T,NB[,any_source][,any_tag])], comma-separated
                    for m2 in re.finditer(r"(\d+|\?)(?:\.(\d+))?(?:\(src=([^,]+),tag=([^,]+),[^)]*\))?", v):
                        if m2.group(1) == "?":
                            continue
                        e.done.append((int(m2.group(1)), int(m2.group(2) or 0),
                                       num(m2.group(3)) if m2.group(3) else None,
                                       num(m2.group(4)) if m2.group(4) else None))
            if e.call in PERSISTENT:
                raise TraceError("rank %d event %d: %s: persistent requests are not modelled by "
                                 "this tool" % (r, e.ord, e.call))
            e.lt = e.send_lt = None
            evs.append(e)
        ranks.append(evs)
    return np_, aet, counters, ranks


# ------------------------------------------------------------------ matching, logical time
def coll_comm(e, rank):
    """the communicator a collective is over (MPI_Init and MPI_Finalize: WORLD; SELF per rank)"""
    if e.call in ("MPI_Init", "MPI_Init_thread", "MPI_Finalize"):
        return WORLD
    return "SELF/%d" % rank if e.comm == "SELF" else e.comm


class Model:
    def __init__(self, np_, ranks):
        self.np, self.ranks = np_, ranks
        self.members = {WORLD: list(range(np_))}
        self.parent = {WORLD: None}
        self.created = [WORLD]
        for r, evs in enumerate(ranks):
            self.members.setdefault("SELF/%d" % r, [r])
            for e in evs:
                if e.new and e.members is not None and e.new not in self.members:
                    self.members[e.new] = e.members
                    self.parent[e.new] = e.comm
                    self.created.append(e.new)
        self.match()
        self.logical_time()

    def comm_members(self, comm, rank):
        if comm not in self.members:
            raise TraceError("rank %d: communicator %s was never created in the trace" % (rank, comm))
        return self.members[comm]

    def depth(self, comm):
        d = 0
        while self.parent.get(comm) is not None and d < 64:
            comm, d = self.parent[comm], d + 1
        return d

    def match(self):
        """messages: each message's ends [(rank, event index)]: the send, its completion, the
        receive's post and its completion; send_of: (rank, index of the event that completes a
        receive) -> the sends it receives; coll: (communicator, k) -> every member's k-th
        collective on it (and a non-blocking one's completion); completion_of: (rank, index of a
        request's start) -> index of the call that completed it"""
        sends, recvs = {}, {}
        self.completion_of = {}            # (rank, post index) -> completion index
        self.coll = {}                     # (comm, k) -> [(rank, index[, completion])]
        for r, evs in enumerate(self.ranks):
            post = {}                      # ordinal -> index
            ncoll = {}
            pending = {}                   # post index -> (comm, peer, tag) of an Irecv
            for i, e in enumerate(evs):
                post[e.ord] = i
                if e.call in SEND or e.call in ISEND or e.call in SENDRECV:
                    if e.peer is not None and e.peer >= 0:
                        sends.setdefault((e.comm, r, e.peer, e.tag), []).append((r, i))
                if e.call == "MPI_Recv" and e.peer is not None and e.peer >= 0:
                    recvs.setdefault((e.comm, e.peer, r, e.tag), []).append((i, r, i))
                if e.call in SENDRECV and e.src2 is not None and e.src2 >= 0:
                    recvs.setdefault((e.comm, e.src2, r, e.tag2), []).append((i, r, i))
                if e.call == "MPI_Irecv":
                    pending[i] = e.comm
                if e.call in COLLECTIVES or e.call in ICOLLECTIVES:
                    comm = coll_comm(e, r)
                    k = ncoll.get(comm, 0)
                    ncoll[comm] = k + 1
                    self.coll.setdefault((comm, k), []).append((r, i))
                if e.call in COMPLETION:
                    for (po, _idx, src, tag) in e.done:
                        j = post.get(po)
                        if j is None:
                            continue
                        self.completion_of[(r, j)] = i
                        if j in pending and src is not None and src >= 0:
                            recvs.setdefault((pending.pop(j), src, r, tag), []).append((j, r, i))
        self.messages = []
        self.send_of = {}                  # (rank, index that receives) -> (rank, index that sends)
        unmatched = 0
        for ch, rl in recvs.items():
            rl.sort()                      # posting order
            sl = sends.get(ch, [])
            if len(rl) > len(sl):
                unmatched += len(rl) - len(sl)
            for k, (ipost, r, icomp) in enumerate(rl[:len(sl)]):
                sr, si = sl[k]
                ends = {(sr, si), (r, ipost), (r, icomp)}
                if (sr, si) in self.completion_of:
                    ends.add((sr, self.completion_of[(sr, si)]))
                self.messages.append(sorted(ends))
                self.send_of.setdefault((r, icomp), []).append((sr, si))
        for ch, sl in sends.items():
            if len(sl) > len(recvs.get(ch, [])):
                unmatched += len(sl) - len(recvs.get(ch, []))
        if unmatched:
            raise TraceError("%d message(s) without a matching send or receive (comm, src, dst, "
                             "tag): a trace this tool cannot model" % unmatched)
        for parts in self.coll.values():   # a non-blocking collective: its completion too
            parts += [(r, self.completion_of[(r, i)]) for (r, i) in parts if (r, i) in self.completion_of]

    def logical_time(self):
        np_, R = self.np, self.ranks
        pos = [0] * np_
        lt = [0] * np_
        ncoll = [dict() for _ in range(np_)]
        arrived = {}                       # (comm, k) -> {rank: lt before}
        left = sum(len(e) for e in R)
        while left:
            moved = False
            for r in range(np_):
                while pos[r] < len(R[r]):
                    e = R[r][pos[r]]
                    if e.call in COLLECTIVES or e.call in ICOLLECTIVES:
                        comm = coll_comm(e, r)
                        k = ncoll[r].get(comm, 0)
                        a = arrived.setdefault((comm, k), {})
                        a[r] = lt[r]
                        size = len(self.comm_members(comm, r))
                        if len(a) < size:
                            break
                        ncoll[r][comm] = k + 1
                        e.lt = 1 + max(a.values())
                    else:
                        need = 0
                        ok = True
                        for (sr, si) in self.send_of.get((r, pos[r]), []):
                            s = R[sr][si]
                            if s.send_lt is None:
                                if sr == r and si == pos[r]:   # a Sendrecv to itself
                                    need = max(need, lt[r] + 1)
                                    continue
                                ok = False
                                break
                            need = max(need, s.send_lt)
                        if e.call in SENDRECV or e.call in SEND or e.call in ISEND:
                            e.send_lt = lt[r] + 1
                        if not ok:
                            break
                        e.lt = max(lt[r] + 1, need + 1 if need else 0)
                    lt[r] = e.lt
                    pos[r] += 1
                    left -= 1
                    moved = True
            if not moved:
                r = min(range(np_), key=lambda q: pos[q] if pos[q] < len(R[q]) else 1 << 62)
                raise TraceError("logical time: no rank can advance (rank %d waits at event %d)"
                                 % (r, R[r][pos[r]].ord))


# ------------------------------------------------------------------ per-process phases
def is_char(e, comm):
    if e.call in SEND or e.call in ISEND or e.call in SENDRECV:
        return e.comm == comm
    if e.call in ("MPI_Init", "MPI_Init_thread", "MPI_Finalize"):
        return comm == WORLD
    return (e.call in COLLECTIVES or e.call in ICOLLECTIVES) and e.comm == comm


def similar(a, b):
    mx = max(a, b)
    return 1.0 if mx == 0 else min(a, b) / mx


class Phase:
    __slots__ = ("rank", "call", "ref", "occ", "time", "work", "first_lt", "relevant", "cluster")


def rank_phases(evs, rank, comm, sim):
    """one phase per tick (thesis 7.5), merged by call and work similarity"""
    ticks = [i for i, e in enumerate(evs) if is_char(e, comm)] or [0]
    phases, bycall = [], {}
    for n, tick in enumerate(ticks):
        t0 = 0 if n == 0 else tick      # events before the first tick go with it
        t1 = ticks[n + 1] if n + 1 < len(ticks) else len(evs)
        work = sum(evs[i].work for i in range(t0, t1))
        time = sum(evs[i].compute + evs[i].dur for i in range(t0, t1)) * 1e-9
        call = evs[tick].call if is_char(evs[tick], comm) else "(no characteristic event)"
        ph = None
        for p in bycall.get(call, []):
            if similar(p.ref, work) >= sim:
                ph = p
                break
        if ph is None:
            ph = Phase()
            ph.rank, ph.call, ph.ref, ph.occ, ph.time, ph.work = rank, call, work, [], 0.0, 0
            ph.first_lt, ph.relevant, ph.cluster = evs[tick].lt, False, None
            bycall.setdefault(call, []).append(ph)
            phases.append(ph)
        ph.occ.append((t0, t1))
        ph.time += time
        ph.work += work
    return phases


def characteristic(model, sim):
    cands = [c for c in model.created if len(model.members.get(c, [])) == model.np]
    best = None
    for order, c in enumerate(cands):
        n = sum(len(rank_phases(evs, r, c, sim)) for r, evs in enumerate(model.ranks))
        key = (-n, model.depth(c), order)
        if best is None or key < best[0]:
            best = (key, c, n)
    return best[1], best[2]


# ------------------------------------------------------------------ K-means
def sqd(a, b):
    return (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2


def kmeans(pts, k, rng, restarts=10, iters=100):
    best = None
    for _ in range(restarts):
        cent = [pts[rng.randrange(len(pts))]]
        while len(cent) < k:          # k-means++
            d = [min(sqd(p, c) for c in cent) for p in pts]
            tot = sum(d)
            if tot == 0:
                break
            x, acc = rng.random() * tot, 0.0
            for p, w in zip(pts, d):
                acc += w
                if acc >= x:
                    cent.append(p)
                    break
        lab = None
        for _it in range(iters):
            new = [min(range(len(cent)), key=lambda j: sqd(p, cent[j])) for p in pts]
            if new == lab:
                break
            lab = new
            for j in range(len(cent)):
                m = [p for p, l in zip(pts, lab) if l == j]
                if m:
                    cent[j] = (sum(p[0] for p in m) / len(m), sum(p[1] for p in m) / len(m))
        sse = sum(sqd(p, cent[l]) for p, l in zip(pts, lab))
        if best is None or sse < best[0] - 1e-15:
            best = (sse, lab)
    return best


def elbow(pts, kmax, frac, seed):
    rng = random.Random(seed)
    kmax = max(1, min(kmax, len(set(pts))))
    curve = [kmeans(pts, k, rng) for k in range(1, kmax + 1)]
    sse1 = curve[0][0]
    k = 1
    while k < kmax and sse1 > 0 and curve[k - 1][0] - curve[k][0] >= frac * sse1:
        k += 1
    return k, curve


def renumber(lab):
    """cluster ids by first point (deterministic ids, empty clusters dropped)"""
    ids = {}
    for l in lab:
        ids.setdefault(l, len(ids))
    return [ids[l] for l in lab], len(ids)


def cluster_closure(model, rel, lab):
    """{cluster: [crossing messages, split collectives]} of the clusters that are not closed"""
    group_of = {}
    for p, l in zip(rel, lab):
        for (t0, t1) in p.occ:
            for i in range(t0, t1):
                group_of[(p.rank, i)] = l
    return open_groups(model, group_of)


# ------------------------------------------------------------------ closure
def open_groups(model, group_of):
    """group_of: {(rank, index): group}; returns {group: [crossing messages, split collectives]}
    for the groups some message or collective instance crosses"""
    bad = {}
    for ends in model.messages:
        gs = [group_of.get(x) for x in ends]
        if len(set(gs)) > 1:
            for g in set(gs) - {None}:
                bad.setdefault(g, [0, 0])[0] += 1
    for parts in model.coll.values():
        gs = [group_of.get(x) for x in parts]
        if len(set(gs)) > 1:
            for g in set(gs) - {None}:
                bad.setdefault(g, [0, 0])[1] += 1
    return bad  # a request's start and completion are ends of its message or collective


def check_signature(model, path):
    """closure of each listed occurrence of a global-phases signature: (closed, checked, note)"""
    root = ET.parse(path).getroot()
    an = root.find("analysis")
    if an is None or an.get("phases") != "global":
        return None, None, "not a global-phases signature"
    if any(e.call in POLLS for evs in model.ranks for e in evs):
        return None, None, "the trace polls (its signature ordinals skip failed polls)"
    occs = {}                           # phase id -> {rank: [(start, end)]}
    for rk in root.findall("rank"):
        r = int(rk.get("id"))
        for ph in rk.findall("phase"):
            occs.setdefault(int(ph.get("id")), {})[r] = [
                (int(o.get("start")), int(o.get("end"))) for o in ph.findall("occurrence")]
    group_of, groups = {}, []
    for pid, per in sorted(occs.items()):
        n = min(len(v) for v in per.values())
        for k in range(n):
            g = (pid, k)
            groups.append(g)
            for r, lst in per.items():
                s, t = lst[k]
                for i in range(s, t):
                    group_of[(r, i)] = g
    bad = open_groups(model, group_of)
    return len(groups) - len(bad), len(groups), ""


# ------------------------------------------------------------------ self-test
def ev(ordinal, call, peer=None, tag=None, comm=WORLD, compute=0, done=(), src2=None, tag2=None):
    e = Event()
    e.ord, e.call, e.peer, e.tag, e.comm = ordinal, call, peer, tag, comm
    e.compute = e.work = compute
    e.dur, e.src2, e.tag2, e.done, e.new, e.members = 0, src2, tag2, list(done), None, None
    e.flags, e.lt, e.send_lt = set(), None, None
    return e


def self_test():
    """what the tool's parts must do, on data made here (no MPI, no trace)"""
    # two ranks: Init; rank 0 a local call, Isend, Wait; rank 1 Irecv, Wait; a Sendrecv
    # exchange; Allreduce; Finalize
    r0 = [ev(0, "MPI_Init"), ev(1, "MPI_Iprobe"), ev(2, "MPI_Isend", 1, 7),
          ev(3, "MPI_Wait", done=[(2, 0, None, None)]), ev(4, "MPI_Sendrecv", 1, 8, src2=1, tag2=9),
          ev(5, "MPI_Allreduce"), ev(6, "MPI_Finalize")]
    r1 = [ev(0, "MPI_Init"), ev(1, "MPI_Irecv", 0, 7), ev(2, "MPI_Wait", done=[(1, 0, 0, 7)]),
          ev(3, "MPI_Sendrecv", 0, 9, src2=0, tag2=8), ev(4, "MPI_Allreduce"), ev(5, "MPI_Finalize")]
    m = Model(2, [r0, r1])
    assert [e.lt for e in r0] == [1, 2, 3, 4, 6, 7, 8], [e.lt for e in r0]
    assert [e.lt for e in r1] == [1, 2, 4, 6, 7, 8], [e.lt for e in r1]  # Wait: the Isend's LT + 1
    assert len(m.messages) == 3
    assert any(x == [(0, 2), (0, 3), (1, 1), (1, 2)] for x in m.messages), m.messages
    # closure: the message's four ends in one group is closed; its receive apart is not
    whole = {(r, i): "A" for r in (0, 1) for i in range(7)}
    assert open_groups(m, whole) == {}
    split = dict(whole)
    split[(1, 2)] = "B"                   # the receive's completion elsewhere
    bad = open_groups(m, split)
    assert bad.get("A") == [1, 0] and bad.get("B") == [1, 0], bad
    split = dict(whole)
    split[(1, 4)] = "B"                   # one member's part of the Allreduce elsewhere
    assert open_groups(m, split).get("A") == [0, 1]
    # one phase per tick: same call, work within the similarity, is one phase
    r = [ev(0, "MPI_Init")] + [ev(i, "MPI_Barrier", compute=(100 if i % 2 else 300)) for i in range(1, 9)]
    ph = rank_phases(r, 0, WORLD, 0.85)
    assert sorted((p.call, len(p.occ)) for p in ph) == [("MPI_Barrier", 4), ("MPI_Barrier", 4), ("MPI_Init", 1)]
    # K-means and the elbow: three separated blobs are three clusters
    pts = [(x + dx, y + dy) for (x, y) in ((0, 0), (1, 0), (0, 1)) for dx in (0, .01, .02) for dy in (0, .01)]
    k, curve = elbow(pts, 8, 0.05, 1)
    lab, n = renumber(curve[k - 1][1])
    assert n == 3 and lab == [0] * 6 + [1] * 6 + [2] * 6, (n, lab)
    print("self-test = ok")
    return 0


# ------------------------------------------------------------------ main
def main(argv):
    ap = argparse.ArgumentParser(description="The thesis's per-process phases and K-means merge "
                                 "(a benchmark; see the module docstring)")
    ap.add_argument("trace", nargs="?")
    ap.add_argument("--self-test", action="store_true", help="check the tool's parts on data "
                    "made in the test (no trace) and exit")
    ap.add_argument("--pas2p", default=None, help="pas2p binary (default: build/bin/pas2p, then PATH)")
    ap.add_argument("--signature", help="a global-phases signature of the same trace: check the "
                    "closure of its listed occurrences the same way")
    ap.add_argument("--relevance", type=float, default=0.01)
    ap.add_argument("--similarity", type=float, default=None,
                    help="work similarity of one phase (default 0.85 instructions, 0.5 time)")
    ap.add_argument("--kmax", type=int, default=40)
    ap.add_argument("--elbow", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--clusters", action="store_true", help="print the cluster table")
    a = ap.parse_args(argv)
    if a.self_test:
        return self_test()
    if not a.trace:
        ap.error("a TRACE_DIR is needed")
    pas2p = a.pas2p
    if pas2p is None:
        here = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                             "..", "..", "build", "bin", "pas2p"))
        pas2p = here if os.access(here, os.X_OK) else shutil.which("pas2p")
    if not pas2p:
        print("thesis_kmeans: no pas2p binary (--pas2p)", file=sys.stderr)
        return 2
    try:
        np_, aet, counters, ranks = read_trace(pas2p, a.trace)
        model = Model(np_, ranks)
    except TraceError as ex:
        print("thesis_kmeans: %s" % ex, file=sys.stderr)
        return 1
    instr = counters[:1] == ["PAPI_TOT_INS"]
    sim = a.similarity if a.similarity is not None else (0.85 if instr else 0.5)
    comm, _n = characteristic(model, sim)
    phases = []
    for r, evs in enumerate(ranks):
        phases += rank_phases(evs, r, comm, sim)
    for p in phases:
        p.relevant = p.time >= a.relevance * aet     # W x mean time = the occurrences' sum
    rel = [p for p in phases if p.relevant]
    # the representative rank and its coverage (analyzer/analyze.c's definition)
    cov = {}
    for r in range(np_):
        cov[r] = sum(p.time for p in rel if p.rank == r)
    rep = min(range(np_), key=lambda r: (abs(cov[r] - aet), r))
    # K-means over (LT of the first occurrence, mean work), scaled to [0, 1]
    raw = [(float(p.first_lt), p.work / len(p.occ)) for p in rel]
    lo = [min(x[d] for x in raw) if raw else 0 for d in (0, 1)]
    hi = [max(x[d] for x in raw) if raw else 0 for d in (0, 1)]
    pts = [tuple((x[d] - lo[d]) / (hi[d] - lo[d]) if hi[d] > lo[d] else 0.0 for d in (0, 1)) for x in raw]
    k, curve = elbow(pts, a.kmax, a.elbow, a.seed) if pts else (0, [])
    lab, K = renumber(curve[k - 1][1]) if pts else ([], 0)
    for p, l in zip(rel, lab):
        p.cluster = l
    bad = cluster_closure(model, rel, lab)
    # closure at every K tried, so the finding does not hang on the elbow rule
    byk = []
    for sse, lk in curve:
        lk, n = renumber(lk)
        byk.append("%d/%d" % (n - len(cluster_closure(model, rel, lk)), n))
    cname = "MPI_COMM_WORLD" if comm == WORLD else comm
    print("trace = %s" % a.trace)
    print("np = %d" % np_)
    print("events = %d" % sum(len(e) for e in ranks))
    print("work measure = %s" % ("instructions (PAPI_TOT_INS)" if instr else
                                 "computation time (the trace has no instruction counts)"))
    print("similarity = %.2f" % sim)
    print("characteristic communicator = %s" % cname)
    print("per-process phases = %d" % len(phases))
    print("relevant per-process phases = %d" % len(rel))
    print("SSE by K = %s" % " ".join("%.4g" % c[0] for c in curve))
    print("K = %d" % K)
    print("representative rank = %d" % rep)
    print("coverage = %.2f %%" % (100 * cov[rep] / aet if aet > 0 else 0))
    print("coverage min over ranks = %.2f %%" % (100 * min(cov.values()) / aet if aet > 0 else 0))
    print("closed clusters = %d/%d" % (K - len(bad), K))
    print("closed clusters by K = %s" % " ".join(byk))
    best = max(byk, key=lambda x: (int(x.split("/")[0]), -int(x.split("/")[1]))) if byk else "0/0"
    if best.startswith("0/"):
        best = "0 at K 1-%d" % len(byk)
    print("most closed clusters at any K = %s" % best)
    print("crossing messages = %d" % sum(v[0] for v in bad.values()))
    print("split collectives = %d" % sum(v[1] for v in bad.values()))
    if a.signature:
        ok, n, why = check_signature(model, a.signature)
        if n is None:
            print("signature occurrences closed = not checked (%s)" % why)
        else:
            print("signature occurrences closed = %d/%d" % (ok, n))
    if a.clusters:
        print()
        print("cluster  phases  ranks  calls                          LT(first)        work/occ   W*t/AET%  closed")
        for c in range(K):
            m = [p for p in rel if p.cluster == c]
            calls = sorted({p.call.replace("MPI_", "") for p in m})
            lts = [p.first_lt for p in m]
            wk = sum(p.work / len(p.occ) for p in m) / len(m)
            share = 100 * sum(p.time for p in m) / aet / np_   # mean over the ranks
            st = "yes" if c not in bad else "no (%d msg, %d coll)" % tuple(bad[c])
            print("%7d  %6d  %5d  %-30s %7d-%-8d %12.4g %9.2f  %s" % (
                c + 1, len(m), len({p.rank for p in m}), ",".join(calls)[:30], min(lts), max(lts),
                wk, share, st))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
