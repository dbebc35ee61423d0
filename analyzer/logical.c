/* The logical trace: a logical time (LT) for every event of every rank.
 *
 * Global mode, PAS2P's Lamport rules across ranks:
 *   - a send, a local call:   LT = own LT + 1 (a send also queues its LT on its channel)
 *   - a receive:              LT = max(own LT + 1, LT of the matching send + 1); messages are
 *     matched by (communicator, source, destination, actual tag) in order (MPI's
 *     non-overtaking rule); non-blocking receives at their completion (Wait/Test), with
 *     ANY_SOURCE resolved from the recorded source
 *   - a collective (and communicator creation and freeing, MPI_Init, MPI_Finalize):
 *     LT = 1 + max over the communicator's members of their LT before it
 * Ranks advance in turns until they wait for a message or a collective; if none can move,
 * the trace is inconsistent (a missing rank file, a foreign trace) and that is an error.
 * Local mode (EPAS): LT = position in the rank's own order.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pas2p_analyzer.h"
#include "table.h"

#define QUANTUM 4096

/* ---- message channels: FIFOs of send LTs */
typedef struct {
    uint64_t *lt;
    size_t head, n, cap;
    size_t want;                 /* a completion's receives on this channel (step: counted) */
} fifo_t;

typedef struct {
    pas2p_event_source_t src;
    pas2p_event_view_t cur;
    int have, done, sent;        /* sent: the send half of the current Sendrecv is queued */
    int registered;              /* arrived at the current collective */
    uint64_t lt, coll_seq_key;
    table_t seq;                 /* comm -> collectives done on it */
    table_t pending;             /* (post ordinal, index) -> comm of a posted receive */
    table_t inits;               /* persistent init ordinal -> (peer, tag, comm, send?) */
} rank_t;

typedef struct {
    int np;
    rank_t *r;
    table_t chans;               /* (comm|tag, src|dst) -> fifo index + 1 */
    fifo_t *fifos;
    size_t nfifos, capfifos;
    table_t colls;               /* (comm | 1<<63, seq) -> collective index + 1 */
    struct coll {
        uint32_t arrived, consumed, size;
        uint64_t maxlt;
    } *cv;
    size_t ncv, capcv;
    uint32_t *freecv;
    size_t nfree;
    table_t sizes;               /* comm id -> size */
    uint64_t unknown_comm;       /* collectives on communicators of unknown size */
    char *err;
    size_t errlen;
} clock_t_;

static fifo_t *channel(clock_t_ *c, uint32_t comm, int32_t src, int32_t dst, int32_t tag, int create)
{
    uint64_t a = (uint64_t)comm << 32 | (uint32_t)tag, b = (uint64_t)(uint32_t)src << 32 | (uint32_t)dst;
    slot_t *s = tfind(&c->chans, a, b);
    if (s)
        return &c->fifos[s->v];
    if (!create)
        return NULL;
    if (c->nfifos == c->capfifos) {
        size_t cap = c->capfifos ? c->capfifos * 2 : 256;
        fifo_t *f = realloc(c->fifos, cap * sizeof *f);
        if (!f)
            return NULL;
        c->fifos = f;
        c->capfifos = cap;
    }
    s = tput(&c->chans, a, b);
    if (!s)
        return NULL;
    s->v = c->nfifos;
    c->fifos[c->nfifos] = (fifo_t){0};
    return &c->fifos[c->nfifos++];
}

static int push(fifo_t *f, uint64_t lt)
{
    if (f->head + f->n == f->cap) {
        if (f->head > f->cap / 2) {
            memmove(f->lt, f->lt + f->head, f->n * sizeof *f->lt);
            f->head = 0;
        } else {
            size_t cap = f->cap ? f->cap * 2 : 16;
            uint64_t *l = realloc(f->lt, cap * sizeof *l);
            if (!l)
                return -1;
            f->lt = l;
            f->cap = cap;
        }
    }
    f->lt[f->head + f->n++] = lt;
    return 0;
}

static int send_msg(clock_t_ *c, uint32_t comm, int32_t src, int32_t dst, int32_t tag, uint64_t lt)
{
    if (dst < 0)
        return 0; /* MPI_PROC_NULL */
    fifo_t *f = channel(c, comm, src, dst, tag, 1);
    return f ? push(f, lt) : -1;
}

static uint32_t comm_size(clock_t_ *c, uint32_t comm)
{
    if (comm == PAS2P_COMM_WORLD)
        return (uint32_t)c->np;
    if (comm == PAS2P_COMM_SELF)
        return 1;
    slot_t *s = tfind(&c->sizes, comm, 0);
    return s ? (uint32_t)s->v : 0;
}

/* the collective rule; 1 = LT assigned, 0 = waiting for other members, -1 error */
static int collective(clock_t_ *c, rank_t *R, uint32_t comm, uint64_t *lt)
{
    uint32_t size = comm_size(c, comm);
    if (!size) { /* made by a call we do not trace: no rule possible, keep local order */
        c->unknown_comm++;
        *lt = R->lt + 1;
        return 1;
    }
    slot_t *sq = tput(&R->seq, comm, 0);
    if (!sq)
        return -1;
    uint64_t a = (uint64_t)comm | 1ull << 63, b = sq->v;
    slot_t *e = tfind(&c->colls, a, b);
    if (!e) {
        e = tput(&c->colls, a, b);
        if (!e)
            return -1;
        if (c->nfree) {
            e->v = c->freecv[--c->nfree];
        } else {
            if (c->ncv == c->capcv) {
                size_t cap = c->capcv ? c->capcv * 2 : 64;
                struct coll *v = realloc(c->cv, cap * sizeof *v);
                uint32_t *fr = v ? realloc(c->freecv, cap * sizeof *fr) : NULL;
                if (v)
                    c->cv = v;
                if (!fr)
                    return -1;
                c->freecv = fr;
                c->capcv = cap;
            }
            e->v = c->ncv++;
        }
        c->cv[e->v] = (struct coll){.size = size};
    }
    struct coll *k = &c->cv[e->v];
    if (!R->registered) {
        R->registered = 1;
        k->arrived++;
        if (R->lt > k->maxlt)
            k->maxlt = R->lt;
    }
    if (k->arrived < k->size)
        return 0;
    *lt = k->maxlt + 1;
    R->registered = 0;
    sq->v++;
    if (++k->consumed == k->size) {
        c->freecv[c->nfree++] = (uint32_t)e->v;
        tdel(&c->colls, e);
    }
    return 1;
}

/* a call whose message leaves at this event (blocking or non-blocking) */
static int is_send_post(unsigned call)
{
    return call == PAS2P_CALL_Send || call == PAS2P_CALL_Ssend || call == PAS2P_CALL_Bsend ||
           call == PAS2P_CALL_Rsend || call == PAS2P_CALL_Isend || call == PAS2P_CALL_Issend ||
           call == PAS2P_CALL_Ibsend || call == PAS2P_CALL_Irsend;
}

static int is_icoll(unsigned call)
{
    return (call >= PAS2P_CALL_Ibarrier && call <= PAS2P_CALL_Iexscan) ||
           (call >= PAS2P_CALL_Ineighbor_allgather && call <= PAS2P_CALL_Ineighbor_alltoallw);
}

static int is_init(unsigned call)
{
    return call >= PAS2P_CALL_Send_init && call <= PAS2P_CALL_Recv_init;
}

/* the channel a completed receive takes its message from; NULL for a completed send or
 * a request we did not see posted.  An empty channel is returned as such. */
static fifo_t *completed_channel(clock_t_ *c, rank_t *R, int rank, const pas2p_completion_t *d,
                                 slot_t **posted)
{
    if (d->source < 0)
        return NULL;
    slot_t *p = tfind(&R->pending, d->post, d->index);
    if (!p)
        return NULL;
    if (posted)
        *posted = p;
    fifo_t *f = channel(c, (uint32_t)p->v, d->source, rank, d->tag, 1);
    return f;
}

/* the LT of R's current event: 1 assigned, 0 blocked, -1 error */
static int step(clock_t_ *c, int rank, uint64_t *lt)
{
    rank_t *R = &c->r[rank];
    const pas2p_event_t *e = &R->cur.ev;
    unsigned call = e->call;
    int klass = pas2p_call_class(call);
    *lt = R->lt + 1;
    switch (klass) {
    case PAS2P_CLASS_ENV:
        if (call == PAS2P_CALL_Abort)
            return 1;
        return collective(c, R, PAS2P_COMM_WORLD, lt);
    case PAS2P_CLASS_COLLECTIVE:
        /* a non-blocking collective's post waits for no one: deal.II's consensus (NBX)
         * posts MPI_Ibarrier, then goes on sending and receiving until it completes, and a
         * rank that receives first posts it after; as a meeting point at its post the clock
         * waited for ever ("the ranks wait for each other").  Its completion is local too:
         * no edge for it (a looser order, never a deadlock; every rank leaves its
         * non-blocking collectives out of the communicator's sequence alike) */
        if (is_icoll(call))
            return 1;
        return collective(c, R, e->comm, lt);
    case PAS2P_CLASS_COMM: {
        pas2p_comm_view_t cv;
        if (pas2p_event_comm_def(&R->cur, &cv)) {
            slot_t *s = tput(&c->sizes, cv.id, 0);
            if (!s)
                return -1;
            s->v = cv.size;
        }
        return collective(c, R, e->comm, lt);
    }
    case PAS2P_CLASS_SEND:
        if (is_init(call)) { /* a persistent send: (ordinal, 0) -> peer and tag, (ordinal, 1) -> comm */
            slot_t *s = tput(&R->inits, R->cur.ordinal, 0);
            if (!s)
                return -1;
            s->v = (uint64_t)(uint32_t)e->peer << 32 | (uint32_t)e->tag;
            slot_t *t = tput(&R->inits, R->cur.ordinal, 1); /* (may move s: set first) */
            if (!t)
                return -1;
            t->v = (uint64_t)e->comm << 1 | 1;
            return 1;
        }
        if (is_send_post(call) && send_msg(c, e->comm, rank, e->peer, e->tag, *lt))
            return -1;
        return 1;
    case PAS2P_CLASS_SENDRECV: {
        if (!R->sent) {
            if (send_msg(c, e->comm, rank, e->peer, e->tag, *lt))
                return -1;
            R->sent = 1;
        }
        if (e->peer2 >= 0) {
            fifo_t *f = channel(c, e->comm, e->peer2, rank, e->tag2, 0);
            if (!f || !f->n)
                return 0;
            uint64_t s = f->lt[f->head++];
            f->n--;
            if (s + 1 > *lt)
                *lt = s + 1;
        }
        R->sent = 0;
        return 1;
    }
    case PAS2P_CLASS_RECV:
        if (call == PAS2P_CALL_Recv && e->peer >= 0) {
            fifo_t *f = channel(c, e->comm, e->peer, rank, e->tag, 0);
            if (!f || !f->n)
                return 0;
            uint64_t s = f->lt[f->head++];
            f->n--;
            if (s + 1 > *lt)
                *lt = s + 1;
        } else if (call == PAS2P_CALL_Irecv) {
            slot_t *s = tput(&R->pending, R->cur.ordinal, 0);
            if (!s)
                return -1;
            s->v = e->comm;
        } else if (call == PAS2P_CALL_Recv_init) {
            slot_t *t = tput(&R->inits, R->cur.ordinal, 1);
            if (!t)
                return -1;
            t->v = (uint64_t)e->comm << 1; /* receive */
        }
        return 1; /* Probe, Iprobe: nothing consumed */
    case PAS2P_CLASS_START: {
        const uint64_t *init = R->cur.payload;
        for (uint32_t i = 0; init && i < e->aux && (i + 1) * 8 <= e->payload; i++) {
            slot_t *t = tfind(&R->inits, init[i], 1), *s = tfind(&R->inits, init[i], 0);
            if (!t)
                continue;
            uint32_t comm = (uint32_t)(t->v >> 1);
            if (t->v & 1) { /* a persistent send starts: the message leaves now */
                if (s && send_msg(c, comm, rank, (int32_t)(s->v >> 32), (int32_t)(uint32_t)s->v, *lt))
                    return -1;
            } else {
                slot_t *p = tput(&R->pending, R->cur.ordinal, i);
                if (!p)
                    return -1;
                p->v = comm;
            }
        }
        return 1;
    }
    case PAS2P_CLASS_COMPLETION: {
        uint32_t n;
        const pas2p_completion_t *d = pas2p_event_completions(&R->cur, &n);
        /* all the messages must be there before any is taken: as many on each channel as
         * the completion takes from it (two receives of one Waitall on one channel holding
         * one message read past it).  (f is taken afresh each time: channel() may grow
         * the channels.) */
        uint32_t i = 0;
        for (; i < n; i++) {
            fifo_t *f = completed_channel(c, R, rank, &d[i], NULL);
            if (f && f->want++ >= f->n)
                break;
        }
        int blocked = i < n;
        for (uint32_t j = 0; j < n && j <= i; j++) {
            fifo_t *f = completed_channel(c, R, rank, &d[j], NULL);
            if (f)
                f->want = 0;
        }
        if (blocked)
            return 0;
        for (i = 0; i < n; i++) {
            slot_t *p;
            fifo_t *f = completed_channel(c, R, rank, &d[i], &p);
            if (!f)
                continue;
            uint64_t s = f->lt[f->head++];
            f->n--;
            if (s + 1 > *lt)
                *lt = s + 1;
            tdel(&R->pending, p);
        }
        return 1;
    }
    default:
        return 1;
    }
}

static void describe_block(clock_t_ *c, int rank, char *out, size_t n)
{
    const pas2p_event_t *e = &c->r[rank].cur.ev;
    snprintf(out, n, "rank %d, event %" PRIu64 " (%s", rank, c->r[rank].cur.ordinal,
             pas2p_call_name(e->call));
    size_t len = strlen(out);
    if (pas2p_call_class(e->call) == PAS2P_CLASS_COLLECTIVE || pas2p_call_class(e->call) == PAS2P_CLASS_COMM ||
        pas2p_call_class(e->call) == PAS2P_CLASS_ENV)
        snprintf(out + len, n - len, " on communicator %u, which not all members reach)", e->comm);
    else
        snprintf(out + len, n - len, ") waits for a message no rank sends");
}

int pas2p_logical_clock(pas2p_event_source_t *srcs, int np, int global,
                        void (*visit)(void *ctx, int rank, uint64_t ordinal, uint64_t lt),
                        void *ctx, uint64_t *max_lt, char *err, size_t errlen)
{
    clock_t_ c = {.np = np, .err = err, .errlen = errlen};
    int rc = -1;
    *max_lt = 0;
    c.r = calloc((size_t)np, sizeof *c.r);
    if (!c.r) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int i = 0; i < np; i++)
        c.r[i].src = srcs[i];
    int active = np;
    while (active) {
        int progress = 0;
        for (int i = 0; i < np; i++) {
            rank_t *R = &c.r[i];
            for (int steps = 0; !R->done && steps < QUANTUM; steps++) {
                if (!R->have) {
                    int r = R->src.next(R->src.ctx, &R->cur);
                    if (r < 0) {
                        snprintf(err, errlen, "%s", R->src.error ? R->src.error(R->src.ctx) : "read error");
                        goto out;
                    }
                    if (r == 0) {
                        R->done = 1;
                        active--;
                        progress = 1;
                        break;
                    }
                    R->have = 1;
                }
                uint64_t lt;
                int s = global ? step(&c, i, &lt) : 1;
                if (!global)
                    lt = R->cur.ordinal + 1;
                if (s < 0) {
                    snprintf(err, errlen, "out of memory");
                    goto out;
                }
                if (!s)
                    break;
                R->lt = lt;
                if (lt > *max_lt)
                    *max_lt = lt;
                if (visit)
                    visit(ctx, i, R->cur.ordinal, lt);
                R->have = 0;
                progress = 1;
            }
        }
        if (!progress) {
            char what[256] = "";
            for (int i = 0; i < np; i++)
                if (!c.r[i].done) {
                    describe_block(&c, i, what, sizeof what);
                    break;
                }
            snprintf(err, errlen, "logical clock: the ranks wait for each other: %s (a missing or "
                     "foreign rank file?)", what);
            goto out;
        }
    }
    rc = 0;
out:
    for (int i = 0; i < np; i++) {
        free(c.r[i].seq.s);
        free(c.r[i].pending.s);
        free(c.r[i].inits.s);
    }
    free(c.r);
    for (size_t i = 0; i < c.nfifos; i++)
        free(c.fifos[i].lt);
    free(c.fifos);
    free(c.chans.s);
    free(c.colls.s);
    free(c.cv);
    free(c.freecv);
    free(c.sizes.s);
    return rc;
}
