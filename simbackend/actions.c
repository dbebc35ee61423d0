/* Signature phases and whole traces as replay actions (pas2p_sim.h, ACTIONS.md). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pas2p_calls.h"
#include "pas2p_sim.h"
#include "pas2p_trace.h"

/* ------------------------------------------------------------------ one event */

static const char *name(uint32_t call)
{
    const char *n = pas2p_call_name(call);
    return n ? n : "an unknown call";
}

/* The action line of one event's call into line ("" for a call with no action).  0, or -1
 * naming the call when the replayer has no way to express it. */
static int action_of(const pas2p_sig_event_t *e, char *line, size_t len, char *err, size_t errlen)
{
    line[0] = 0;
    unsigned long long b = (unsigned long long)e->bytes, rb = (unsigned long long)e->rbytes;
    switch (e->call) {
    case PAS2P_CALL_Init: case PAS2P_CALL_Init_thread: case PAS2P_CALL_Finalize:
    case PAS2P_CALL_Abort: case PAS2P_CALL_Iprobe: case PAS2P_CALL_Request_free:
    case PAS2P_CALL_Comm_dup: case PAS2P_CALL_Comm_split: case PAS2P_CALL_Comm_create:
    case PAS2P_CALL_Comm_free: case PAS2P_CALL_Cart_create: case PAS2P_CALL_Cart_sub:
    case PAS2P_CALL_Comm_split_type: case PAS2P_CALL_Comm_dup_with_info:
        return 0; /* the replayer runs its own Init/Finalize and builds every communicator
                     up front; a probe that does not block moves no data */
    case PAS2P_CALL_Send: case PAS2P_CALL_Ssend: case PAS2P_CALL_Bsend: case PAS2P_CALL_Rsend:
        snprintf(line, len, "send %d %d %llu %u\n", e->peer, e->tag, b, e->comm);
        return 0;
    case PAS2P_CALL_Isend: case PAS2P_CALL_Issend: case PAS2P_CALL_Ibsend: case PAS2P_CALL_Irsend:
        snprintf(line, len, "isend %d %d %llu %u\n", e->peer, e->tag, b, e->comm);
        return 0;
    case PAS2P_CALL_Recv:
        snprintf(line, len, "recv %d %d %llu %u\n", e->peer, e->tag, rb, e->comm);
        return 0;
    case PAS2P_CALL_Irecv:
        snprintf(line, len, "irecv %d %d %llu %u\n", e->peer, e->tag, rb, e->comm);
        return 0;
    case PAS2P_CALL_Probe:
        snprintf(line, len, "probe %d %d %u\n", e->peer, e->tag, e->comm);
        return 0;
    case PAS2P_CALL_Sendrecv: case PAS2P_CALL_Sendrecv_replace:
        snprintf(line, len, "sendrecv %d %d %llu %d %d %llu %u\n", e->peer, e->tag, b, e->peer2, e->tag2,
                rb, e->comm);
        return 0;
    case PAS2P_CALL_Wait: case PAS2P_CALL_Waitany:
        snprintf(line, len, "wait 1\n");
        return 0;
    case PAS2P_CALL_Waitsome:
        snprintf(line, len, "wait %u\n", e->aux ? e->aux : 1);
        return 0;
    case PAS2P_CALL_Waitall:
        snprintf(line, len, "waitall\n");
        return 0;
    case PAS2P_CALL_Test: case PAS2P_CALL_Testany: case PAS2P_CALL_Testall: case PAS2P_CALL_Testsome:
        snprintf(line, len, "test\n");
        return 0;
    case PAS2P_CALL_Barrier: case PAS2P_CALL_Ibarrier:
        snprintf(line, len, "%sbarrier %u\n", e->call == PAS2P_CALL_Ibarrier ? "i" : "", e->comm);
        return 0;
    case PAS2P_CALL_Bcast: case PAS2P_CALL_Ibcast:
        snprintf(line, len, "%sbcast %llu %d %u\n", e->call == PAS2P_CALL_Ibcast ? "i" : "", b, e->peer, e->comm);
        return 0;
    case PAS2P_CALL_Reduce: case PAS2P_CALL_Ireduce:
        snprintf(line, len, "%sreduce %llu %d %u\n", e->call == PAS2P_CALL_Ireduce ? "i" : "", b, e->peer, e->comm);
        return 0;
    case PAS2P_CALL_Allreduce: case PAS2P_CALL_Iallreduce:
        snprintf(line, len, "%sallreduce %llu %u\n", e->call == PAS2P_CALL_Iallreduce ? "i" : "", b, e->comm);
        return 0;
    case PAS2P_CALL_Gather: case PAS2P_CALL_Igather: /* bytes: what each rank sends */
        snprintf(line, len, "%sgather %llu %d %u\n", e->call == PAS2P_CALL_Igather ? "i" : "", b, e->peer, e->comm);
        return 0;
    case PAS2P_CALL_Scatter: case PAS2P_CALL_Iscatter: /* rbytes: what each rank receives */
        snprintf(line, len, "%sscatter %llu %d %u\n", e->call == PAS2P_CALL_Iscatter ? "i" : "", rb, e->peer, e->comm);
        return 0;
    case PAS2P_CALL_Allgather: case PAS2P_CALL_Iallgather: /* bytes: per rank */
        snprintf(line, len, "%sallgather %llu %u\n", e->call == PAS2P_CALL_Iallgather ? "i" : "", b, e->comm);
        return 0;
    case PAS2P_CALL_Alltoall: case PAS2P_CALL_Ialltoall: /* bytes: per peer */
        snprintf(line, len, "%salltoall %llu %u\n", e->call == PAS2P_CALL_Ialltoall ? "i" : "", b, e->comm);
        return 0;
    case PAS2P_CALL_Reduce_scatter_block: case PAS2P_CALL_Ireduce_scatter_block:
        snprintf(line, len, "%sreduce_scatter %llu %u\n", e->call == PAS2P_CALL_Ireduce_scatter_block ? "i" : "",
                b, e->comm);
        return 0;
    case PAS2P_CALL_Scan: case PAS2P_CALL_Exscan:
        snprintf(line, len, "%s %llu %u\n", e->call == PAS2P_CALL_Scan ? "scan" : "exscan", b, e->comm);
        return 0;
    default:
        /* persistent requests, v- and w-collectives (per-peer counts are not in a
         * signature), non-blocking scans: not expressible yet */
        snprintf(err, errlen, "%s cannot be replayed yet (no action for it)", name(e->call));
        return -1;
    }
}

/* Writes the actions of one event: its computation, then the call. */
static int write_event(FILE *f, const pas2p_sig_event_t *e, char *err, size_t errlen)
{
    char line[256];
    if (action_of(e, line, sizeof line, err, errlen))
        return -1;
    if (e->compute_s > 0)
        fprintf(f, "compute %.9g\n", e->compute_s);
    fputs(line, f);
    return 0;
}

static FILE *open_rank(const char *dir, uint32_t rank, uint32_t np, double kernel_rate,
                       char *path, size_t plen, char *err, size_t errlen)
{
    snprintf(path, plen, "%.4000s/rank-%05u.act", dir, rank);
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "%.4000s: cannot write: %s", path, strerror(errno));
        return NULL;
    }
    fprintf(f, "pas2p-actions %u rank %u np %u\n", PAS2P_ACTIONS_VERSION, rank, np);
    if (kernel_rate > 0)
        fprintf(f, "kernel_rate %.9g\n", kernel_rate);
    return f;
}

static int close_rank(FILE *f, const char *path, char *err, size_t errlen)
{
    int bad = ferror(f);
    if (fclose(f) || bad) {
        snprintf(err, errlen, "%.4000s: cannot write (disk full?)", path);
        return -1;
    }
    return 0;
}

static void write_comm(FILE *f, uint32_t id, const int32_t *members, uint32_t size)
{
    fprintf(f, "comm %u ", id);
    for (uint32_t i = 0; i < size; i++)
        fprintf(f, "%s%d", i ? "," : "", members[i]);
    fputc('\n', f);
}

/* ------------------------------------------------------------------ phase closure */

typedef struct {
    int32_t src, dst;   /* world ranks; src PAS2P_PEER_ANY: a wildcard receive (any source
                           or any tag), which may take any message to dst */
    int32_t tag;
    uint32_t comm;
    int32_t n;          /* +1 send, -1 receive */
} msg_t;

static int cmp_msg(const void *a, const void *b)
{
    const msg_t *x = a, *y = b;
    if (x->dst != y->dst)
        return x->dst < y->dst ? -1 : 1;
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->tag != y->tag)
        return x->tag < y->tag ? -1 : 1;
    return 0;
}

typedef struct {
    msg_t *m;
    size_t n, cap;
} msgs_t;

static int push(msgs_t *v, int32_t src, int32_t dst, uint32_t comm, int32_t tag, int32_t n)
{
    if (src < 0 && src != PAS2P_PEER_ANY)
        return 0; /* MPI_PROC_NULL: no message */
    if (dst < 0)
        return 0;
    if (n < 0 && (src == PAS2P_PEER_ANY || tag == PAS2P_TAG_ANY))
        src = PAS2P_PEER_ANY, tag = 0;
    if (v->n == v->cap) {
        size_t c = v->cap ? 2 * v->cap : 256;
        msg_t *m = realloc(v->m, c * sizeof *m);
        if (!m)
            return -1;
        v->m = m;
        v->cap = c;
    }
    v->m[v->n++] = (msg_t){src, dst, tag, comm, n};
    return 0;
}

static const pas2p_sig_phase_t *find_phase(const pas2p_sig_rank_t *R, uint32_t id)
{
    for (uint32_t k = 0; k < R->nphases; k++)
        if (R->phases[k].id == id)
            return &R->phases[k];
    return NULL;
}

static int is_coll(uint32_t call)
{
    return pas2p_call_class(call) == PAS2P_CLASS_COLLECTIVE;
}

/* members of communicator `comm` (world: everyone); NULL if unknown */
static const pas2p_sig_comm_t *find_comm(const pas2p_signature_t *s, uint32_t id)
{
    for (uint32_t c = 0; c < s->ncomms; c++)
        if (s->comms[c].id == id)
            return &s->comms[c];
    return NULL;
}

/* Is phase `id` replayable alone?  Point-to-point messages balance per (sender, receiver,
 * communicator); every member of a communicator makes the same collectives in order. */
static int check_phase(const pas2p_signature_t *s, uint32_t id, char *err, size_t errlen)
{
    msgs_t v = {0};
    int rc = 0;
    for (uint32_t r = 0; r < s->nranks && !rc; r++) {
        const pas2p_sig_phase_t *p = find_phase(&s->ranks[r], id);
        int32_t me = (int32_t)s->ranks[r].rank;
        for (uint32_t i = 0; p && i < p->nevents && !rc; i++) {
            const pas2p_sig_event_t *e = &p->events[i];
            int cls = pas2p_call_class(e->call);
            if (cls == PAS2P_CLASS_SEND)
                rc = push(&v, me, e->peer, e->comm, e->tag, +1);
            else if (cls == PAS2P_CLASS_RECV && e->call != PAS2P_CALL_Probe && e->call != PAS2P_CALL_Iprobe)
                rc = push(&v, e->peer, me, e->comm, e->tag, -1);
            else if (cls == PAS2P_CLASS_SENDRECV)
                rc = push(&v, me, e->peer, e->comm, e->tag, +1) ||
                     push(&v, e->peer2, me, e->comm, e->tag2, -1);
        }
    }
    if (rc) {
        snprintf(err, errlen, "out of memory");
        free(v.m);
        return -1;
    }
    if (v.n) /* no point-to-point message in the phase: nothing to match (and qsort(NULL) is UB) */
        qsort(v.m, v.n, sizeof *v.m, cmp_msg);
    /* per (receiver, communicator): each (sender, tag)'s surplus must be absorbed by that
     * receiver's wildcard receives, exactly */
    for (size_t i = 0; i < v.n && !rc;) {
        size_t j = i;
        long any = 0, surplus = 0;
        while (j < v.n && v.m[j].dst == v.m[i].dst && v.m[j].comm == v.m[i].comm) {
            size_t k = j;
            long sum = 0;
            while (k < v.n && v.m[k].dst == v.m[j].dst && v.m[k].comm == v.m[j].comm &&
                   v.m[k].src == v.m[j].src && v.m[k].tag == v.m[j].tag)
                sum += v.m[k++].n;
            if (v.m[j].src == PAS2P_PEER_ANY) {
                any = -sum;
            } else if (sum < 0) {
                snprintf(err, errlen, "phase %u cannot be replayed alone: rank %d receives %ld "
                         "message(s) from rank %d (tag %d, communicator %u) that rank %d does not "
                         "send in that phase", id, v.m[j].dst, -sum, v.m[j].src, v.m[j].tag,
                         v.m[j].comm, v.m[j].src);
                rc = -1;
            } else {
                surplus += sum;
            }
            j = k;
        }
        if (!rc && surplus != any) {
            snprintf(err, errlen, "phase %u cannot be replayed alone: rank %d is sent %ld "
                     "message(s) more than it receives in that phase (communicator %u)", id,
                     v.m[i].dst, surplus - any, v.m[i].comm);
            rc = -1;
        }
        i = j;
    }
    free(v.m);
    /* collectives: the same sequence on every member */
    for (uint32_t r = 0; r < s->nranks && !rc; r++) {
        const pas2p_sig_phase_t *p = find_phase(&s->ranks[r], id);
        for (uint32_t i = 0; p && i < p->nevents && !rc; i++) {
            const pas2p_sig_event_t *e = &p->events[i];
            if (!is_coll(e->call))
                continue;
            /* the k-th collective of this rank on e->comm must be the k-th of every member */
            uint32_t k = 0;
            for (uint32_t j = 0; j < i; j++)
                k += is_coll(p->events[j].call) && p->events[j].comm == e->comm;
            const pas2p_sig_comm_t *c = find_comm(s, e->comm);
            uint32_t nm = e->comm == PAS2P_COMM_WORLD ? s->np : e->comm == PAS2P_COMM_SELF ? 1 : c ? c->size : 0;
            if (e->comm != PAS2P_COMM_WORLD && e->comm != PAS2P_COMM_SELF && !c) {
                snprintf(err, errlen, "phase %u: rank %u's %s is on communicator %u, which the "
                         "signature does not define", id, s->ranks[r].rank, name(e->call), e->comm);
                rc = -1;
                break;
            }
            for (uint32_t m = 0; m < nm && !rc; m++) {
                uint32_t w = e->comm == PAS2P_COMM_WORLD ? m : e->comm == PAS2P_COMM_SELF
                                                                   ? s->ranks[r].rank
                                                                   : (uint32_t)c->members[m];
                uint32_t q = 0;
                while (q < s->nranks && s->ranks[q].rank != w)
                    q++;
                const pas2p_sig_phase_t *o = q < s->nranks ? find_phase(&s->ranks[q], id) : NULL;
                uint32_t kk = 0, j = 0;
                for (; o && j < o->nevents; j++)
                    if (is_coll(o->events[j].call) && o->events[j].comm == e->comm && kk++ == k)
                        break;
                if (!o || j == o->nevents || o->events[j].call != e->call ||
                    o->events[j].peer != e->peer) {
                    snprintf(err, errlen, "phase %u cannot be replayed alone: rank %u makes %s on "
                             "communicator %u, rank %u does not make it there in that phase", id,
                             s->ranks[r].rank, name(e->call), e->comm, w);
                    rc = -1;
                }
            }
        }
    }
    return rc;
}

/* ------------------------------------------------------------------ signature */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Occurrences of phase `id` replayed back to back per timed repetition: enough for ~1 ms
 * of base time, at most 64 and at most the phase's weight, judged on the representative
 * rank (else the first rank that has the phase).  Every rank must use the same count.
 * A repetition starts after a barrier, whose exit is skewed across ranks by about a
 * message latency; a phase of a few microseconds (a ping-pong's exchange) paid that skew
 * in full: +50 % against the full trace on a GbE platform.  In a burst the skew is paid
 * once, and consecutive occurrences overlap as they did in the run. */
/* the phase as the representative rank has it (else the first rank that has it): what
 * every rank's block header is decided on, so that all ranks agree */
static const pas2p_sig_phase_t *rep_phase(const pas2p_signature_t *s, uint32_t id)
{
    const pas2p_sig_phase_t *p = NULL;
    for (uint32_t r = 0; r < s->nranks && !p; r++)
        if (s->ranks[r].rank == s->representative)
            p = find_phase(&s->ranks[r], id);
    for (uint32_t r = 0; r < s->nranks && !p; r++)
        p = find_phase(&s->ranks[r], id);
    return p;
}

static unsigned burst_of(const pas2p_signature_t *s, uint32_t id)
{
    const pas2p_sig_phase_t *p = rep_phase(s, id);
    if (!p)
        return 1;
    double want = p->time_mean_s > 0 ? ceil(1e-3 / p->time_mean_s) : 64;
    uint64_t k = want > 64 ? 64 : (uint64_t)want;
    if (k > p->weight)
        k = p->weight;
    return k ? (unsigned)k : 1;
}

/* the original phase ids one block of a rank stands for (merge_variants) */
typedef struct {
    uint32_t n, *ids;
} alias_t;

/* al: NULL, or per rank (index into s->ranks) per phase (index into its table) the ids the
 * phase's block reports its times under (`as`) */
static int write_actions(const pas2p_signature_t *s, const char *dir, alias_t *const *al,
                         char *err, size_t errlen)
{
    /* the relevant phase ids, over all ranks */
    size_t cap = 0, n = 0;
    for (uint32_t r = 0; r < s->nranks; r++)
        cap += s->ranks[r].nphases;
    uint32_t *ids = malloc((cap ? cap : 1) * sizeof *ids);
    if (!ids) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (uint32_t r = 0; r < s->nranks; r++)
        for (uint32_t k = 0; k < s->ranks[r].nphases; k++)
            if (s->ranks[r].phases[k].relevant)
                ids[n++] = s->ranks[r].phases[k].id;
    qsort(ids, n, sizeof *ids, cmp_u32);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (!u || ids[u - 1] != ids[i])
            ids[u++] = ids[i];
    int rc = 0;
    if (s->nranks != s->np) {
        snprintf(err, errlen, "the signature has phase tables for %u of its %u ranks", s->nranks, s->np);
        rc = -1;
    }
    for (uint32_t r = 0; r < s->nranks && !rc; r++) /* every call expressible, first */
        for (uint32_t k = 0; k < s->ranks[r].nphases && !rc; k++) {
            const pas2p_sig_phase_t *p = &s->ranks[r].phases[k];
            char line[256], why[512];
            for (uint32_t j = 0; p->relevant && j < p->nevents && !rc; j++)
                if (action_of(&p->events[j], line, sizeof line, why, sizeof why)) {
                    snprintf(err, errlen, "phase %u, rank %u: %s", p->id, s->ranks[r].rank, why);
                    rc = -1;
                }
        }
    for (size_t i = 0; i < u && !rc; i++)
        if ((rc = check_phase(s, ids[i], err, errlen))) {
            /* usually the ranks cut the loop into phases differently: per-rank structure,
             * or SPMD ranks whose time variants split differently (a 4-rank stencil on 2
             * cores: rank 0's halo as 81 + 10 + 9 occurrences, the others' as 10 + 90, so
             * phase ids no longer name the same code on every rank) */
            size_t len = strlen(err);
            snprintf(err + len, errlen - len, " (the ranks' phases differ: analyze with "
                     "--compute-similarity 0 to cut phases by the calls alone)");
        }
    for (uint32_t r = 0; r < s->nranks && !rc; r++) {
        const pas2p_sig_rank_t *R = &s->ranks[r];
        char path[4200];
        FILE *f = open_rank(dir, R->rank, s->np, R->kernel_rate, path, sizeof path, err, errlen);
        if (!f) {
            rc = -1;
            break;
        }
        for (uint32_t c = 0; c < s->ncomms; c++)
            write_comm(f, s->comms[c].id, s->comms[c].members, s->comms[c].size);
        for (size_t i = 0; i < u && !rc; i++) {
            const pas2p_sig_phase_t *p = find_phase(R, ids[i]);
            /* a phase of weight 1 ran once in the application, cold: replayed once, not
             * warmed up and repeated (cg's start-up phase is 15 % of its run) */
            const pas2p_sig_phase_t *rp = rep_phase(s, ids[i]);
            fprintf(f, "phase %u %u%s", ids[i], burst_of(s, ids[i]),
                    rp && rp->weight == 1 ? " once" : "");
            const alias_t *A = al && p ? &al[r][p - R->phases] : NULL;
            for (uint32_t k = 0; A && k < A->n; k++)
                fprintf(f, "%s%u", k ? "," : " as ", A->ids[k]);
            fputc('\n', f);
            for (uint32_t j = 0; p && j < p->nevents && !rc; j++)
                if (write_event(f, &p->events[j], err, errlen)) {
                    char why[512];
                    snprintf(why, sizeof why, "%s", err);
                    snprintf(err, errlen, "phase %u, rank %u: %s", ids[i], R->rank, why);
                    rc = -1;
                }
            fputs("end\n", f);
        }
        if (close_rank(f, path, err, errlen) && !rc)
            rc = -1;
    }
    free(ids);
    return rc;
}

/* the phase of R with p's calls that has an occurrence starting where p's first does (the
 * same iteration of the same loop in an SPMD code), else the heaviest phase with p's calls,
 * else NULL */
static const pas2p_sig_phase_t *counterpart(const pas2p_sig_rank_t *R, const pas2p_sig_phase_t *p)
{
    const pas2p_sig_phase_t *best = NULL;
    for (uint32_t k = 0; k < R->nphases; k++) {
        const pas2p_sig_phase_t *q = &R->phases[k];
        uint32_t j = 0;
        if (q->nevents != p->nevents)
            continue;
        while (j < q->nevents && q->events[j].call == p->events[j].call)
            j++;
        if (j < q->nevents)
            continue;
        for (uint32_t a = 0; p->nocc && a < q->nocc; a++)
            if (q->occ_start[a] == p->occ_start[0])
                return q;
        if (!best || q->weight > best->weight)
            best = q;
    }
    return best;
}

/* An SPMD signature whose ranks split a loop's time variants differently (rank 0's halo as
 * 81 + 10 + 9 occurrences, the others' as 10 + 90) numbers the same code differently on
 * different ranks, and phase N of one rank is not phase N of its neighbour.  Aligned: every
 * rank replays, for each relevant phase of the representative, its counterpart
 * (counterpart()), under the representative's id.  A shallow copy: `out` shares the events
 * of `s`; free with free_aligned.  0, or -1 if some rank has no phase with those calls. */
static int align_to_representative(const pas2p_signature_t *s, pas2p_signature_t *out)
{
    const pas2p_sig_rank_t *rep = NULL;
    for (uint32_t r = 0; r < s->nranks; r++)
        if (s->ranks[r].rank == s->representative)
            rep = &s->ranks[r];
    if (!rep)
        return -1;
    uint32_t nrel = 0;
    for (uint32_t k = 0; k < rep->nphases; k++)
        nrel += rep->phases[k].relevant != 0;
    *out = *s;
    out->ranks = calloc(s->nranks ? s->nranks : 1, sizeof *out->ranks);
    if (!out->ranks)
        return -1;
    for (uint32_t r = 0; r < s->nranks; r++) {
        pas2p_sig_rank_t *R = &out->ranks[r];
        *R = s->ranks[r];
        R->nphases = 0;
        R->phases = calloc(nrel ? nrel : 1, sizeof *R->phases);
        if (!R->phases)
            return -1;
        for (uint32_t k = 0; k < rep->nphases; k++) {
            const pas2p_sig_phase_t *p = &rep->phases[k];
            if (!p->relevant)
                continue;
            const pas2p_sig_phase_t *q = counterpart(&s->ranks[r], p);
            if (!q)
                return -1;
            R->phases[R->nphases] = *q;
            R->phases[R->nphases].id = p->id;
            R->phases[R->nphases++].relevant = 1;
        }
    }
    return 0;
}

static void free_aligned(pas2p_signature_t *a)
{
    for (uint32_t r = 0; a->ranks && r < a->nranks; r++)
        free(a->ranks[r].phases);
    free(a->ranks);
}

static int cmp_phase_id(const void *a, const void *b)
{
    uint32_t x = (*(const pas2p_sig_phase_t *const *)a)->id, y = (*(const pas2p_sig_phase_t *const *)b)->id;
    return x < y ? -1 : x > y;
}

static int near(uint64_t a, uint64_t b, double tol)
{
    double x = (double)a, y = (double)b;
    return fabs(x - y) <= tol * (x > y ? x : y);
}

/* the same calls with the same peers, tags, communicators and sizes (within tol) */
static int same_skeleton(const pas2p_sig_phase_t *a, const pas2p_sig_phase_t *b, double tol)
{
    if (a->nevents != b->nevents)
        return 0;
    for (uint32_t j = 0; j < a->nevents; j++) {
        const pas2p_sig_event_t *x = &a->events[j], *y = &b->events[j];
        if (x->call != y->call || x->peer != y->peer || x->tag != y->tag ||
            x->peer2 != y->peer2 || x->tag2 != y->tag2 || x->comm != y->comm ||
            x->aux != y->aux || !near(x->bytes, y->bytes, tol) || !near(x->rbytes, y->rbytes, tol))
            return 0;
    }
    return 1;
}

static void free_merged(pas2p_signature_t *m, alias_t **al)
{
    for (uint32_t r = 0; m->ranks && r < m->nranks; r++) {
        for (uint32_t k = 0; k < m->ranks[r].nphases; k++)
            free(m->ranks[r].phases[k].events);
        free(m->ranks[r].phases);
        for (uint32_t k = 0; al && al[r] && k < m->ranks[r].nphases; k++)
            free(al[r][k].ids);
        if (al)
            free(al[r]);
    }
    free(m->ranks);
    free(al);
}

/* A signature whose ranks split a loop's time variants differently (cartsweep traced under
 * load: rank 0's sweep as 89 + 11 occurrences of two phases with the same calls, rank 1's as
 * one phase of 100) numbers the same code differently on different ranks, and, when the
 * ranks' calls differ (a pipeline: one sends, the other receives), there is no counterpart
 * by calls either.  Merged: on every rank, relevant phases with the same skeleton become one
 * phase (weights summed, times and each call's computation weighted by them), and the
 * ranks' merged phases, in the order of their first occurrence, are numbered 1, 2, ...
 * The block of a merged phase reports its times under every id it stands for (`as`), so
 * the PET is taken with the signature as it is.  0, or -1 when the ranks do not have the
 * same number of merged phases (then they differ by more than time variants). */
static int merge_variants(const pas2p_signature_t *s, pas2p_signature_t *m, alias_t ***alp)
{
    double tol = s->size_tolerance > 0 ? s->size_tolerance : 0.05;
    uint32_t ngroups = UINT32_MAX;
    *m = *s;
    m->ranks = calloc(s->nranks ? s->nranks : 1, sizeof *m->ranks);
    alias_t **al = *alp = calloc(s->nranks ? s->nranks : 1, sizeof *al);
    if (!m->ranks || !al)
        return -1;
    for (uint32_t r = 0; r < s->nranks; r++) {
        const pas2p_sig_rank_t *R = &s->ranks[r];
        pas2p_sig_rank_t *M = &m->ranks[r];
        *M = *R;
        M->nphases = 0;
        M->phases = calloc(R->nphases ? R->nphases : 1, sizeof *M->phases);
        al[r] = calloc(R->nphases ? R->nphases : 1, sizeof *al[r]);
        if (!M->phases || !al[r])
            return -1;
        /* relevant phases in id order (the order of their first occurrences) */
        const pas2p_sig_phase_t **order = malloc((R->nphases ? R->nphases : 1) * sizeof *order);
        if (!order)
            return -1;
        for (uint32_t k = 0; k < R->nphases; k++)
            order[k] = &R->phases[k];
        qsort(order, R->nphases, sizeof *order, cmp_phase_id);
        for (uint32_t o = 0; o < R->nphases; o++) {
            const pas2p_sig_phase_t *p = order[o];
            if (!p->relevant || !p->weight)
                continue;
            uint32_t g = 0;
            while (g < M->nphases && !same_skeleton(&M->phases[g], p, tol))
                g++;
            pas2p_sig_phase_t *G = &M->phases[g];
            double w = (double)p->weight;
            if (g == M->nphases) { /* a new phase: sums, divided by the weight below */
                *G = *p;
                G->events = calloc(p->nevents ? p->nevents : 1, sizeof *G->events);
                if (!G->events) {
                    free(order);
                    return -1;
                }
                memcpy(G->events, p->events, p->nevents * sizeof *G->events);
                for (uint32_t j = 0; j < p->nevents; j++) {
                    G->events[j].compute_s *= w;
                    G->events[j].instructions *= w;
                }
                G->weight = 0;
                G->time_mean_s = G->compute_mean_s = G->instructions_mean = 0;
                M->nphases++;
            } else {
                for (uint32_t j = 0; j < p->nevents; j++) {
                    G->events[j].compute_s += w * p->events[j].compute_s;
                    G->events[j].instructions += w * p->events[j].instructions;
                }
            }
            G->weight += p->weight;
            G->time_mean_s += w * p->time_mean_s;
            G->compute_mean_s += w * p->compute_mean_s;
            G->instructions_mean += w * p->instructions_mean;
            alias_t *A = &al[r][g];
            uint32_t *ids = realloc(A->ids, (A->n + 1) * sizeof *ids);
            if (!ids) {
                free(order);
                return -1;
            }
            A->ids = ids;
            A->ids[A->n++] = p->id;
        }
        free(order);
        for (uint32_t g = 0; g < M->nphases; g++) {
            pas2p_sig_phase_t *G = &M->phases[g];
            double w = (double)G->weight;
            for (uint32_t j = 0; j < G->nevents; j++) {
                G->events[j].compute_s /= w;
                G->events[j].instructions /= w;
            }
            G->time_mean_s /= w;
            G->time_median_s = G->time_min_s = G->time_max_s = G->time_mean_s;
            G->compute_mean_s /= w;
            G->instructions_mean /= w;
            G->id = g + 1;
            G->relevant = 1;
        }
        if (ngroups == UINT32_MAX)
            ngroups = M->nphases;
        else if (ngroups != M->nphases)
            return -1;
    }
    return 0;
}

int pas2p_actions_from_signature(const pas2p_signature_t *s, const char *dir, char *err,
                                 size_t errlen)
{
    if (errlen)
        err[0] = 0;
    int rc = write_actions(s, dir, NULL, err, errlen);
    if (!rc || !strstr(err, "cannot be replayed alone"))
        return rc;
    char why[1024];
    if (s->spmd) {
        pas2p_signature_t a = {0};
        int arc = align_to_representative(s, &a);
        if (!arc)
            arc = write_actions(&a, dir, NULL, why, sizeof why);
        free_aligned(&a);
        if (!arc) {
            snprintf(err, errlen, "the ranks number their phases differently (time variants "
                     "split differently); each rank replays the counterpart of the "
                     "representative rank %u's phases", s->representative);
            return 0;
        }
    }
    pas2p_signature_t m = {0};
    alias_t **al = NULL;
    int mrc = merge_variants(s, &m, &al);
    if (!mrc)
        mrc = write_actions(&m, dir, al, why, sizeof why);
    free_merged(&m, al);
    if (mrc)
        return rc; /* the first reason: the phases as the signature numbers them */
    snprintf(err, errlen, "the ranks number their phases differently (time variants split "
             "differently); each rank replays its phases with the same calls as one, their "
             "times weighted");
    return 0;
}

/* ------------------------------------------------------------------ full trace */

typedef struct {
    uint32_t id, size;
    int32_t *members;
} tcomm_t;

int pas2p_actions_from_trace(const char *trace_dir, const char *dir, uint64_t *events, char *err,
                             size_t errlen)
{
    pas2p_manifest_t m;
    *events = 0;
    if (pas2p_manifest_read(trace_dir, &m, err, errlen))
        return -1;
    tcomm_t *comms = NULL;
    uint32_t ncomms = 0;
    int rc = 0;
    char path[PATH_MAX];
    /* pass 1: every communicator any rank created (members in communicator rank order) */
    for (int r = 0; r < m.np && !rc; r++) {
        pas2p_rank_path(trace_dir, r, path, sizeof path);
        pas2p_rank_reader_t *rd = pas2p_rank_reader_open(path, err, errlen);
        if (!rd) {
            rc = -1;
            break;
        }
        pas2p_event_view_t v;
        int k;
        while ((k = pas2p_rank_reader_next(rd, &v)) == 1) {
            pas2p_comm_view_t cv;
            if (!pas2p_event_comm_def(&v, &cv))
                continue;
            uint32_t c = 0;
            while (c < ncomms && comms[c].id != cv.id)
                c++;
            if (c < ncomms)
                continue;
            tcomm_t *nc = realloc(comms, (ncomms + 1) * sizeof *comms);
            int32_t *mem = malloc((cv.size ? cv.size : 1) * sizeof *mem);
            if (nc)
                comms = nc;
            if (!nc || !mem) {
                free(mem);
                snprintf(err, errlen, "out of memory");
                rc = -1;
                break;
            }
            memcpy(mem, cv.members, cv.size * sizeof *mem);
            comms[ncomms++] = (tcomm_t){cv.id, cv.size, mem};
        }
        if (k < 0 && !rc) {
            snprintf(err, errlen, "%s", pas2p_rank_reader_error(rd));
            rc = -1;
        }
        pas2p_rank_reader_close(rd);
    }
    /* pass 2: every event, in order */
    for (int r = 0; r < m.np && !rc; r++) {
        pas2p_rank_path(trace_dir, r, path, sizeof path);
        pas2p_rank_reader_t *rd = pas2p_rank_reader_open(path, err, errlen);
        if (!rd) {
            rc = -1;
            break;
        }
        char apath[4200];
        FILE *f = open_rank(dir, (uint32_t)r, (uint32_t)m.np, m.kernel_rate[r], apath, sizeof apath, err, errlen);
        if (!f) {
            pas2p_rank_reader_close(rd);
            rc = -1;
            break;
        }
        for (uint32_t c = 0; c < ncomms; c++)
            write_comm(f, comms[c].id, comms[c].members, comms[c].size);
        pas2p_event_view_t v;
        int k;
        while (!rc && (k = pas2p_rank_reader_next(rd, &v)) == 1) {
            const pas2p_event_t *e = &v.ev;
            pas2p_sig_event_t x = {.call = e->call, .peer = e->peer, .tag = e->tag,
                                   .peer2 = e->peer2, .tag2 = e->tag2, .comm = e->comm,
                                   .aux = e->aux, .bytes = e->bytes, .rbytes = e->rbytes,
                                   .compute_s = (double)e->compute_ns * 1e-9};
            if (write_event(f, &x, err, errlen)) {
                char why[512];
                snprintf(why, sizeof why, "%s", err);
                snprintf(err, errlen, "rank %d, event %llu: %s", r, (unsigned long long)v.ordinal, why);
                rc = -1;
            }
            (*events)++;
        }
        if (!rc && k < 0) {
            snprintf(err, errlen, "%s", pas2p_rank_reader_error(rd));
            rc = -1;
        }
        if (!rc && pas2p_manifest_check_count(&m, r, pas2p_rank_reader_count(rd), err, errlen))
            rc = -1;
        pas2p_rank_reader_close(rd);
        if (close_rank(f, apath, err, errlen) && !rc)
            rc = -1;
    }
    for (uint32_t c = 0; c < ncomms; c++)
        free(comms[c].members);
    free(comms);
    pas2p_manifest_free(&m);
    return rc;
}
