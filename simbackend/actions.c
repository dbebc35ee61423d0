/* Signature phases and whole traces as replay actions (pas2p_sim.h, ACTIONS.md). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "action_table.h"
#include "pas2p_calls.h"
#include "pas2p_sim.h"
#include "pas2p_trace.h"

/* ------------------------------------------------------------------ one event */

static const char *name(uint32_t call)
{
    const char *n = pas2p_call_name(call);
    return n ? n : "an unknown call";
}

/* The action table (action_table.h) by call id: a row, or what to do with a call that has
 * none.  Built once per translation. */
enum { NO_ACTION = -1, SILENT = -2, REFUSED = -3 /* - k: the k-th refusal */ };
#define CALLMAP_SIZE 256
typedef struct {
    int16_t row[CALLMAP_SIZE];
    int simulated;            /* for a simulation: each call's computation includes its wait_s */
} callmap_t;

#define WHY_(calls, why) why,
static const char *const refusal_why[] = {PAS2P_ACTIONS_REFUSED(WHY_)};
#undef WHY_
#define CALLS_(calls, why) calls,
static const char *const refusal_calls[] = {PAS2P_ACTIONS_REFUSED(CALLS_)};
#undef CALLS_

static void callmap_init(callmap_t *m)
{
    for (unsigned c = 0; c < CALLMAP_SIZE; c++) {
        const char *n = pas2p_call_name(c);
        m->row[c] = NO_ACTION;
        if (!n || strncmp(n, "MPI_", 4))
            continue;
        n += 4;
        for (int k = 0; k < PAS2P_NACTIONS; k++)
            if (pas2p_action_lists(pas2p_action_rows[k].calls, n))
                m->row[c] = (int16_t)k;
        if (pas2p_action_lists(PAS2P_ACTIONS_SILENT, n))
            m->row[c] = SILENT;
        for (size_t k = 0; k < sizeof refusal_calls / sizeof *refusal_calls; k++)
            if (pas2p_action_lists(refusal_calls[k], n))
                m->row[c] = (int16_t)(REFUSED - (int)k);
    }
}

/* a persistent request's init (written as nothing: its Starts send and receive) */
static int is_init(uint32_t call)
{
    return call == PAS2P_CALL_Send_init || call == PAS2P_CALL_Ssend_init ||
           call == PAS2P_CALL_Bsend_init || call == PAS2P_CALL_Rsend_init ||
           call == PAS2P_CALL_Recv_init;
}

/* The row of e's call (>= 0), SILENT (no action), or -1 naming the call in err. */
static int row_of(const callmap_t *m, const pas2p_sig_event_t *e, char *err, size_t errlen)
{
    int r = e->call < CALLMAP_SIZE ? m->row[e->call] : NO_ACTION;
    if (r >= 0 || r == SILENT)
        return r;
    if (r <= REFUSED)
        snprintf(err, errlen, "%s cannot be replayed: %s", name(e->call), refusal_why[REFUSED - r]);
    else
        snprintf(err, errlen, "%s cannot be replayed yet (no action for it)", name(e->call));
    return -1;
}

/* A v-collective's per-peer byte counts (communicator rank order): list 0 is COUNTS
 * (VROOTED, VBYTES, VCOUNTS) or SCOUNTS (VV), list 1 RCOUNTS (VV); n 0 writes `-`. */
typedef struct {
    uint64_t *c[2];
    uint32_t n[2];
} vcounts_t;

static void vcounts_free(vcounts_t *v)
{
    free(v->c[0]);
    free(v->c[1]);
    memset(v, 0, sizeof *v);
}

static int has_counts(int row)
{
    enum pas2p_fields f = pas2p_action_rows[row].fields;
    return f == PAS2P_AF_VROOTED || f == PAS2P_AF_VBYTES || f == PAS2P_AF_VV || f == PAS2P_AF_VCOUNTS;
}

static void put_counts(FILE *f, const vcounts_t *v, int k)
{
    fputc(' ', f);
    if (!v->n[k])
        fputc('-', f);
    for (uint32_t i = 0; i < v->n[k]; i++)
        fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)v->c[k][i]);
}

/* Writes the actions of one event: its computation, then the action of its call (none
 * for a SILENT one).  vc: the per-peer counts of a v-collective.  0, or -1 naming the call
 * when the replayer has no way to express it. */
/* the computation before event e */
static void write_compute(FILE *f, const callmap_t *m, const pas2p_sig_event_t *e)
{
    double c = e->compute_s + (m->simulated ? e->wait_s : 0);
    if (c > 0)
        fprintf(f, "compute %.9g\n", c);
}

static int write_event(FILE *f, const callmap_t *m, const pas2p_sig_event_t *e, const vcounts_t *vc,
                       char *err, size_t errlen)
{
    int row = row_of(m, e, err, errlen);
    if (row == -1)
        return -1;
    write_compute(f, m, e);
    if (e->polled) /* what the run's tests completed, polling, before this call */
        fprintf(f, "wait %u\n", e->polled);
    if (e->pwpos > 1) /* a receive a test completed that was not the oldest pending: that one */
        fprintf(f, "wait 1 %u\n", e->pwpos - 1);
    else if (e->pwpos)
        fprintf(f, "wait 1\n");
    if (row == SILENT)
        return 0;
    /* a wait that completed nothing (its requests null or inactive: ELPA waits on
     * MPI_REQUEST_NULL 1629 times a rank) returns at once; written as `wait 1` it waited for
     * the oldest pending request, a receive whose message the peer sends later: replay and
     * both simulations deadlocked */
    if (!e->aux && (e->call == PAS2P_CALL_Wait || e->call == PAS2P_CALL_Waitany ||
                    e->call == PAS2P_CALL_Waitsome || e->call == PAS2P_CALL_Waitall))
        return 0;
    const pas2p_action_row_t *A = &pas2p_action_rows[row];
    unsigned long long b = A->bytes == PAS2P_B_RECEIVED ? (unsigned long long)e->rbytes
                                                        : (unsigned long long)e->bytes;
    const char *n = A->name;
    switch (A->fields) {
    case PAS2P_AF_NONE: fprintf(f, "%s", n); break;
    case PAS2P_AF_P2P: fprintf(f, "%s %d %d %llu %u", n, e->peer, e->tag, b, e->comm); break;
    case PAS2P_AF_PROBE: fprintf(f, "%s %d %d %u", n, e->peer, e->tag, e->comm); break;
    case PAS2P_AF_SENDRECV:
        fprintf(f, "%s %d %d %llu %d %d %llu %u", n, e->peer, e->tag, (unsigned long long)e->bytes,
                e->peer2, e->tag2, (unsigned long long)e->rbytes, e->comm);
        break;
    case PAS2P_AF_COUNT:
        fprintf(f, "%s %u", n, e->aux);
        if (e->wpos > 1) /* not the oldest pending request: which one */
            fprintf(f, " %u", e->wpos - 1);
        break;
    case PAS2P_AF_COMM: fprintf(f, "%s %u", n, e->comm); break;
    case PAS2P_AF_ROOTED: case PAS2P_AF_VROOTED: fprintf(f, "%s %llu %d %u", n, b, e->peer, e->comm); break;
    case PAS2P_AF_BYTES: case PAS2P_AF_VBYTES: fprintf(f, "%s %llu %u", n, b, e->comm); break;
    case PAS2P_AF_VV: case PAS2P_AF_VCOUNTS: fprintf(f, "%s %u", n, e->comm); break;
    case PAS2P_AF_SECONDS: case PAS2P_AF_PHASE:
        snprintf(err, errlen, "%s: the action table writes it as '%s'", name(e->call), n);
        return -1;
    }
    if (has_counts(row)) {
        put_counts(f, vc, 0);
        if (A->fields == PAS2P_AF_VV)
            put_counts(f, vc, 1);
    }
    fputc('\n', f);
    return 0;
}

static FILE *open_rank(const char *dir, uint32_t rank, uint32_t np, double kernel_rate,
                       double blocked, char *path, size_t plen, char *err, size_t errlen)
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
    if (kernel_rate > 0 && blocked > 0 && blocked < 1)
        fprintf(f, "compute_blocked %.6g\n", blocked);
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

/* members of communicator `comm` (world: 0..np-1, self: the rank itself); -1 if unknown */
static int32_t comm_size_of(const pas2p_signature_t *s, uint32_t comm)
{
    const pas2p_sig_comm_t *c = find_comm(s, comm);
    return comm == PAS2P_COMM_WORLD ? (int32_t)s->np : comm == PAS2P_COMM_SELF ? 1 : c ? (int32_t)c->size : -1;
}

/* the world rank of member m of `comm` (known: comm_size_of >= 0), seen from world rank me */
static int32_t comm_member(const pas2p_signature_t *s, uint32_t comm, uint32_t me, int32_t m)
{
    if (comm == PAS2P_COMM_WORLD)
        return m;
    if (comm == PAS2P_COMM_SELF)
        return (int32_t)me;
    return find_comm(s, comm)->members[m];
}

/* how many collectives on event i's communicator come before it in p */
static uint32_t coll_ordinal(const pas2p_sig_phase_t *p, uint32_t i)
{
    uint32_t k = 0;
    for (uint32_t j = 0; j < i; j++)
        k += is_coll(p->events[j].call) && p->events[j].comm == p->events[i].comm;
    return k;
}

/* the k-th collective on `comm` of world rank w in phase id, or NULL */
static const pas2p_sig_event_t *kth_coll(const pas2p_signature_t *s, uint32_t id, int32_t w,
                                         uint32_t comm, uint32_t k)
{
    uint32_t q = 0;
    while (q < s->nranks && (int32_t)s->ranks[q].rank != w)
        q++;
    const pas2p_sig_phase_t *o = q < s->nranks ? find_phase(&s->ranks[q], id) : NULL;
    for (uint32_t j = 0, kk = 0; o && j < o->nevents; j++)
        if (is_coll(o->events[j].call) && o->events[j].comm == comm && kk++ == k)
            return &o->events[j];
    return NULL;
}

/* The per-peer counts of the v-collective p->events[i] of world rank me (action table row
 * `row`), from its fellow members' events in the same phase (their k-th collective on the
 * communicator; check_phase has made sure it is the same call with the same root): each
 * member's entry is the byte count of its own event that the row's BYTES is (gatherv and
 * allgatherv: what each sends; scatterv and reduce_scatterv: what each receives), exact; a
 * rooted one's counts only at its root.  An alltoallv's per-peer matrix is not in a
 * signature (each rank keeps its sent and received totals): it is spread in proportion to
 * the totals, from i to j bytes_i x rbytes_j / sum(rbytes), which keeps every rank's totals
 * and is the same on both ends.  0, or -1 with a reason. */
static int sig_counts(const pas2p_signature_t *s, int row, uint32_t me, const pas2p_sig_phase_t *p,
                      uint32_t i, vcounts_t *vc, char *err, size_t errlen)
{
    const pas2p_sig_event_t *e = &p->events[i];
    const pas2p_action_row_t *A = &pas2p_action_rows[row];
    memset(vc, 0, sizeof *vc);
    int32_t n = comm_size_of(s, e->comm);
    if (A->fields == PAS2P_AF_VROOTED && e->peer != (int32_t)me)
        return 0; /* not the root: `-` */
    if (n <= 0) {
        snprintf(err, errlen, "%s on communicator %u, which the signature does not define",
                 name(e->call), e->comm);
        return -1;
    }
    int lists = A->fields == PAS2P_AF_VV ? 2 : 1;
    uint64_t *sent = calloc((size_t)n, sizeof *sent), *recd = calloc((size_t)n, sizeof *recd);
    for (int k = 0; k < lists; k++)
        vc->c[k] = calloc((size_t)n, sizeof *vc->c[k]);
    if (!sent || !recd || !vc->c[0] || (lists == 2 && !vc->c[1])) {
        free(sent);
        free(recd);
        vcounts_free(vc);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    uint32_t k = coll_ordinal(p, i);
    int32_t mine = -1;
    double rsum = 0;
    for (int32_t m = 0; m < n; m++) {
        int32_t w = comm_member(s, e->comm, me, m);
        const pas2p_sig_event_t *o = w == (int32_t)me ? e : kth_coll(s, p->id, w, e->comm, k);
        if (w == (int32_t)me)
            mine = m;
        if (!o || o->call != e->call) {
            free(sent);
            free(recd);
            vcounts_free(vc);
            snprintf(err, errlen, "%s on communicator %u: rank %d does not make it in the phase",
                     name(e->call), e->comm, w);
            return -1;
        }
        sent[m] = o->bytes;
        recd[m] = o->rbytes;
        rsum += (double)o->rbytes;
    }
    for (int32_t m = 0; m < n; m++) {
        if (A->fields != PAS2P_AF_VV) {
            vc->c[0][m] = A->bytes == PAS2P_B_RECEIVED ? recd[m] : sent[m];
        } else if (rsum > 0 && mine >= 0) {
            vc->c[0][m] = (uint64_t)floor((double)sent[mine] * (double)recd[m] / rsum);
            vc->c[1][m] = (uint64_t)floor((double)sent[m] * (double)recd[mine] / rsum);
        }
    }
    for (int k2 = 0; k2 < lists; k2++)
        vc->n[k2] = (uint32_t)n;
    free(sent);
    free(recd);
    return 0;
}

/* A signature's Start/Startall: the Start's computation, then the isend (irecv for a
 * Recv_init) of each request it starts, as the signature names them (`starts`) */
static int write_started(FILE *f, const callmap_t *m, const pas2p_sig_event_t *e, char *err,
                         size_t errlen)
{
    write_compute(f, m, e);
    for (uint32_t j = 0; j < e->nstarts; j++) {
        const pas2p_sig_start_t *q = &e->starts[j];
        int recv = q->call == PAS2P_CALL_Recv_init;
        pas2p_sig_event_t x = {.call = recv ? PAS2P_CALL_Irecv : PAS2P_CALL_Isend,
                               .peer = q->peer, .tag = q->tag, .peer2 = -1, .tag2 = -1,
                               .comm = q->comm, .bytes = recv ? 0 : q->bytes,
                               .rbytes = recv ? q->bytes : 0};
        if (write_event(f, m, &x, NULL, err, errlen))
            return -1;
    }
    return 0;
}

/* The point-to-point messages of phase `id`, every rank's sends (+1) and receives (-1) per
 * (receiver, communicator, sender, tag), sorted (cmp_msg).  0, or -1 out of memory. */
static int phase_messages(const pas2p_signature_t *s, uint32_t id, msgs_t *v)
{
    int rc = 0;
    for (uint32_t r = 0; r < s->nranks && !rc; r++) {
        const pas2p_sig_phase_t *p = find_phase(&s->ranks[r], id);
        int32_t me = (int32_t)s->ranks[r].rank;
        for (uint32_t i = 0; p && i < p->nevents && !rc; i++) {
            const pas2p_sig_event_t *e = &p->events[i];
            int cls = pas2p_call_class(e->call);
            for (uint32_t j = 0; j < e->nstarts && !rc; j++) { /* a Start's requests */
                const pas2p_sig_start_t *q = &e->starts[j];
                rc = q->call == PAS2P_CALL_Recv_init ? push(v, q->peer, me, q->comm, q->tag, -1)
                                                     : push(v, me, q->peer, q->comm, q->tag, +1);
            }
            if (is_init(e->call))
                continue;
            if (cls == PAS2P_CLASS_SEND)
                rc = push(v, me, e->peer, e->comm, e->tag, +1);
            else if (cls == PAS2P_CLASS_RECV && e->call != PAS2P_CALL_Probe && e->call != PAS2P_CALL_Iprobe &&
                     !e->cancelled) /* (a receive the run cancelled or never completed takes none) */
                rc = push(v, e->peer, me, e->comm, e->tag, -1);
            else if (cls == PAS2P_CLASS_SENDRECV)
                rc = push(v, me, e->peer, e->comm, e->tag, +1) ||
                     push(v, e->peer2, me, e->comm, e->tag2, -1);
        }
    }
    if (!rc && v->n) /* no point-to-point message in the phase: nothing to match (and qsort(NULL) is UB) */
        qsort(v->m, v->n, sizeof *v->m, cmp_msg);
    return rc;
}

/* Calls `f` for each (sender, receiver, communicator, tag) of phase `id` whose sends no
 * receive of the phase takes, with how many: a receiver's surplus over its wildcard
 * receives, taken from its senders in order (sender, tag).  Only a global signature's last
 * occurrence has them: messages the application left in flight when it ended (the
 * analyzer's note; Ray sends one to itself), which are not replayed.  Returns what f
 * returns when not 0, else 0; -1 out of memory. */
typedef int (*unreceived_fn)(void *ctx, int32_t src, int32_t dst, uint32_t comm, int32_t tag, long n);
static int unreceived(const msgs_t *v, unreceived_fn f, void *ctx)
{
    for (size_t i = 0; i < v->n;) {
        size_t j = i;
        long any = 0, surplus = 0;
        while (j < v->n && v->m[j].dst == v->m[i].dst && v->m[j].comm == v->m[i].comm) {
            long sum = 0;
            size_t k = j;
            while (k < v->n && v->m[k].dst == v->m[j].dst && v->m[k].comm == v->m[j].comm &&
                   v->m[k].src == v->m[j].src && v->m[k].tag == v->m[j].tag)
                sum += v->m[k++].n;
            if (v->m[j].src == PAS2P_PEER_ANY)
                any = -sum;
            else if (sum > 0)
                surplus += sum;
            j = k;
        }
        long left = surplus - any; /* sends no receive takes */
        for (size_t k = i; k < j && left > 0;) {
            size_t e = k;
            long sum = 0;
            while (e < j && v->m[e].src == v->m[k].src && v->m[e].tag == v->m[k].tag)
                sum += v->m[e++].n;
            if (v->m[k].src != PAS2P_PEER_ANY && sum > 0) {
                long n = sum < left ? sum : left;
                int rc = f(ctx, v->m[k].src, v->m[k].dst, v->m[k].comm, v->m[k].tag, n);
                if (rc)
                    return rc;
                left -= n;
            }
            k = e;
        }
        i = j;
    }
    return 0;
}

/* Is phase `id` replayable alone?  Point-to-point messages balance per (sender, receiver,
 * communicator) -- in a global signature a surplus of sends is the messages never received
 * (unreceived), left out; every member of a communicator makes the same collectives in
 * order. */
static int check_phase(const pas2p_signature_t *s, uint32_t id, char *err, size_t errlen)
{
    msgs_t v = {0};
    int rc = phase_messages(s, id, &v);
    if (rc) {
        snprintf(err, errlen, "out of memory");
        free(v.m);
        return -1;
    }
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
        /* more wildcard receives than messages left for them: the application cancelled
         * the others (unmatched_wildcards; they are not replayed); more messages than
         * receives: in a per-rank signature, a phase that is not communication-closed */
        if (!rc && surplus > any && !s->global) {
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
            uint32_t k = coll_ordinal(p, i);
            int32_t nm = comm_size_of(s, e->comm);
            if (nm < 0) {
                snprintf(err, errlen, "phase %u: rank %u's %s is on communicator %u, which the "
                         "signature does not define: made by a call the tracer does not wrap "
                         "(MPI_Comm_spawn, MPI_Comm_accept)", id, s->ranks[r].rank,
                         name(e->call), e->comm);
                rc = -1;
                break;
            }
            for (int32_t m = 0; m < nm && !rc; m++) {
                int32_t w = comm_member(s, e->comm, s->ranks[r].rank, m);
                const pas2p_sig_event_t *o = kth_coll(s, id, w, e->comm, k);
                if (!o || o->call != e->call || o->peer != e->peer) {
                    snprintf(err, errlen, "phase %u cannot be replayed alone: rank %u makes %s on "
                             "communicator %u, rank %d does not make it there in that phase", id,
                             s->ranks[r].rank, name(e->call), e->comm, w);
                    rc = -1;
                }
            }
        }
    }
    return rc;
}

/* Rank me's wildcard receives on communicator comm in phase id that no message of the
 * phase matches: its wildcard receives less the messages sent to it there that its
 * specific receives leave over.  They are receives the application posted and then
 * cancelled (MPI_Cancel is not traced: the receive's completion just has no source):
 * HPCC's RandomAccess keeps MPI_Irecv(MPI_ANY_SOURCE) posted while it sends its updates,
 * and cancels the last one when every rank is done.  Replayed, such a receive would wait
 * for ever (check_phase lets them through; write_actions leaves them out, the last ones
 * posted: messages match the earliest posted receive, so those are the ones left
 * unmatched). */
static long unmatched_wildcards(const pas2p_signature_t *s, uint32_t id, int32_t me, uint32_t comm)
{
    long sent = 0, specific = 0, wild = 0;
    for (uint32_t r = 0; r < s->nranks; r++) {
        const pas2p_sig_phase_t *p = find_phase(&s->ranks[r], id);
        int32_t from = (int32_t)s->ranks[r].rank;
        for (uint32_t i = 0; p && i < p->nevents; i++) {
            const pas2p_sig_event_t *e = &p->events[i];
            for (uint32_t j = 0; j < e->nstarts; j++) { /* a Start's requests */
                const pas2p_sig_start_t *q = &e->starts[j];
                if (q->comm != comm)
                    continue;
                if (q->call != PAS2P_CALL_Recv_init && q->peer == me)
                    sent++;
                else if (q->call == PAS2P_CALL_Recv_init && from == me)
                    (q->peer == PAS2P_PEER_ANY || q->tag == PAS2P_TAG_ANY) ? wild++
                                                                           : q->peer >= 0 ? specific++ : 0;
            }
            if (e->comm != comm || is_init(e->call))
                continue;
            int cls = pas2p_call_class(e->call);
            if ((cls == PAS2P_CLASS_SEND || cls == PAS2P_CLASS_SENDRECV) && e->peer == me)
                sent++;
            if (from != me || e->cancelled) /* (those the signature names: left out already) */
                continue;
            int32_t src = cls == PAS2P_CLASS_SENDRECV ? e->peer2 : e->peer;
            int32_t tag = cls == PAS2P_CLASS_SENDRECV ? e->tag2 : e->tag;
            if ((cls == PAS2P_CLASS_RECV && e->call != PAS2P_CALL_Probe &&
                 e->call != PAS2P_CALL_Iprobe) || cls == PAS2P_CLASS_SENDRECV) {
                if (src == PAS2P_PEER_ANY || tag == PAS2P_TAG_ANY)
                    wild++;
                else if (src >= 0)
                    specific++;
            }
        }
    }
    long left = sent - specific;
    return wild > left ? wild - (left > 0 ? left : 0) : 0;
}

/* rank R's events of phase p that are not replayed: 1 per event (NULL: none, or out of
 * memory: *oom set).  The receives the signature says the run cancelled (`cancelled`:
 * wherever they were posted, e.g. one at the end of each of several rounds of a phase,
 * HPCC's RandomAccess at N 1000), then, of the wildcard receives the others leave
 * unmatched on each communicator (unmatched_wildcards, which counts no named one), the last
 * ones posted (signatures without the attribute) */
static uint8_t *cancelled_receives(const pas2p_signature_t *s, const pas2p_sig_rank_t *R,
                                   const pas2p_sig_phase_t *p, int *oom)
{
    uint8_t *skip = NULL;
    *oom = 0;
    for (uint32_t j = 0; j < p->nevents; j++) {
        const pas2p_sig_event_t *e = &p->events[j];
        if (!e->cancelled || e->call != PAS2P_CALL_Irecv)
            continue;
        if (!skip && !(skip = calloc(p->nevents, 1))) {
            *oom = 1;
            return NULL;
        }
        skip[j] = 1;
    }
    for (uint32_t j = p->nevents; j-- > 0;) {
        const pas2p_sig_event_t *e = &p->events[j];
        if (e->call != PAS2P_CALL_Irecv || (e->peer != PAS2P_PEER_ANY && e->tag != PAS2P_TAG_ANY))
            continue;
        /* first time this communicator is seen from the end: its unmatched count */
        uint32_t k = j + 1;
        while (k < p->nevents && !(p->events[k].call == PAS2P_CALL_Irecv && p->events[k].comm == e->comm &&
                                   (p->events[k].peer == PAS2P_PEER_ANY || p->events[k].tag == PAS2P_TAG_ANY)))
            k++;
        if (k < p->nevents)
            continue; /* (done from its last wildcard receive) */
        long n = unmatched_wildcards(s, p->id, (int32_t)R->rank, e->comm);
        for (uint32_t i = j + 1; n > 0 && i-- > 0;) {
            const pas2p_sig_event_t *x = &p->events[i];
            if (x->call != PAS2P_CALL_Irecv || x->comm != e->comm ||
                (x->peer != PAS2P_PEER_ANY && x->tag != PAS2P_TAG_ANY) || (skip && skip[i]))
                continue;
            if (!skip && !(skip = calloc(p->nevents, 1))) {
                *oom = 1;
                return NULL;
            }
            skip[i] = 1;
            n--;
        }
    }
    return skip;
}

/* rank R's sends that no receive takes (unreceived), marked in skip: the last n of each
 * such (receiver, communicator, tag) in R's phase */
typedef struct {
    const pas2p_sig_rank_t *R;
    const pas2p_sig_phase_t *p;
    uint8_t **skip;
} unrecv_ctx_t;

static int mark_unreceived(void *ctx, int32_t src, int32_t dst, uint32_t comm, int32_t tag, long n)
{
    unrecv_ctx_t *u = ctx;
    if (src != (int32_t)u->R->rank)
        return 0;
    for (uint32_t i = u->p->nevents; n > 0 && i-- > 0;) {
        const pas2p_sig_event_t *e = &u->p->events[i];
        if (pas2p_call_class(e->call) != PAS2P_CLASS_SEND || is_init(e->call) || e->peer != dst || e->comm != comm ||
            e->tag != tag || (*u->skip && (*u->skip)[i]))
            continue;
        if (!*u->skip && !(*u->skip = calloc(u->p->nevents, 1)))
            return -1;
        (*u->skip)[i] = 1;
        n--;
    }
    return 0;
}

/* cancelled_receives, and in a global signature the sends never received: rank R's events
 * of phase p that are not replayed (1 per event; NULL: none, or out of memory: *oom) */
static uint8_t *not_replayed(const pas2p_signature_t *s, const pas2p_sig_rank_t *R,
                             const pas2p_sig_phase_t *p, int *oom)
{
    uint8_t *skip = cancelled_receives(s, R, p, oom);
    if (*oom || !s->global)
        return skip;
    msgs_t v = {0};
    unrecv_ctx_t u = {R, p, &skip};
    if (phase_messages(s, p->id, &v) || unreceived(&v, mark_unreceived, &u) < 0) {
        *oom = 1;
        free(skip);
        skip = NULL;
    }
    free(v.m);
    return skip;
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

#define SHORT_REP_S 2e-3 /* a timed repetition this short (base time) ... */
#define SHORT_REPS 6      /* ... is replayed at least this many times, the warm-up included */

static unsigned burst_of(const pas2p_signature_t *s, uint32_t id)
{
    const pas2p_sig_phase_t *p = rep_phase(s, id);
    if (!p)
        return 1;
    uint32_t occ = p->skel_occ > 1 ? p->skel_occ : 1; /* (the block's events: occ occurrences) */
    double want = p->time_mean_s > 0 ? ceil(1e-3 / (occ * p->time_mean_s)) : 64;
    uint64_t k = want > 64 ? 64 : (uint64_t)want;
    if (k > p->weight / occ)
        k = p->weight / occ;
    return k ? (unsigned)k : 1;
}

/* the original phase ids one block of a rank stands for (merge_variants) */
typedef struct {
    uint32_t n, *ids;
} alias_t;

/* al: NULL, or per rank (index into s->ranks) per phase (index into its table) the ids the
 * phase's block reports its times under (`as`) */
/* A list of a rank's requests by the ordinal of their post (post_add): its wildcard
 * receives that no message matched (cancelled: their completion has no source, or never
 * completed), sorted, `at` walking them; the receives completed; the mirror's pending ones */
typedef struct {
    uint64_t *post;
    size_t n, cap, at;
} cancels_t;

static int post_add(cancels_t *c, uint64_t post)
{
    if (c->n == c->cap) {
        size_t nc = c->cap ? 2 * c->cap : 16;
        uint64_t *p = realloc(c->post, nc * sizeof *p);
        if (!p)
            return -1;
        c->post = p;
        c->cap = nc;
    }
    c->post[c->n++] = post;
    return 0;
}

/* The requests a phase block leaves pending as the replayer runs it (it starts empty:
 * each occurrence is communication-closed, and the replayer completes what is left at its
 * end), each named by the call of the phase that posted it (a cancels_t of call indices,
 * oldest first): which position an MPI_Wait's request has there (`wait 1 P`), from the
 * call its `completes` names. */
static void pending_drop(cancels_t *q, size_t at, size_t k)
{
    if (at >= q->n || !k)
        return;
    if (at + k > q->n)
        k = q->n - at;
    memmove(q->post + at, q->post + at + k, (q->n - at - k) * sizeof *q->post);
    q->n -= k;
}

/* call j of the phase (e, written as action row `row`; e->wpos set here) into the model:
 * its polled completions (the oldest), its own request(s), or what its wait completes.
 * 0, or -1 out of memory. */
/* where the request that call j - dist of the phase posted is among q's (q->n: not there) */
static size_t pending_find(const cancels_t *q, uint32_t j, uint32_t dist)
{
    size_t at = 0;
    if (!dist || dist > j)
        return q->n;
    while (at < q->n && q->post[at] != j - dist)
        at++;
    return at;
}

static int pending_note(cancels_t *q, pas2p_sig_event_t *e, uint32_t j, int row)
{
    pending_drop(q, 0, e->polled);
    /* the receive a test completed before the call, not the oldest (`polled_completes`):
     * where it is, if its Irecv was written in this block (e->pwpos, for write_event) */
    e->pwpos = 0;
    if (!e->nstarts) {
        size_t at = pending_find(q, j, e->pcompletes);
        if (at < q->n) {
            e->pwpos = (uint32_t)at + 1;
            pending_drop(q, at, 1);
        }
    }
    if (e->nstarts) {
        for (uint32_t k = 0; k < e->nstarts; k++)
            if (post_add(q, j))
                return -1;
        return 0;
    }
    if (row == SILENT)
        return 0;
    /* a wait that completed nothing (its requests null or inactive: ELPA waits on
     * MPI_REQUEST_NULL 1629 times a rank) returns at once; written as `wait 1` it waited for
     * the oldest pending request, a receive whose message the peer sends later: replay and
     * both simulations deadlocked */
    if (!e->aux && (e->call == PAS2P_CALL_Wait || e->call == PAS2P_CALL_Waitany ||
                    e->call == PAS2P_CALL_Waitsome || e->call == PAS2P_CALL_Waitall))
        return 0;
    const pas2p_action_row_t *A = &pas2p_action_rows[row];
    if (A->nb)
        return post_add(q, j);
    if (!strcmp(A->name, "waitall")) {
        q->n = 0;
    } else if (!strcmp(A->name, "wait")) {
        size_t at = (e->aux ? e->aux : 1) == 1 ? pending_find(q, j, e->completes) : q->n;
        if (at == q->n) /* not there: the oldest */
            at = 0;
        e->wpos = at ? (uint32_t)at + 1 : 0;
        pending_drop(q, at, e->aux ? e->aux : 1);
    }
    return 0;
}

static int write_actions(const pas2p_signature_t *s, const callmap_t *m, const char *dir,
                         alias_t *const *al, char *err, size_t errlen)
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
            char why[512];
            for (uint32_t j = 0; p->relevant && j < p->nevents && !rc; j++)
                if (!p->events[j].nstarts && row_of(m, &p->events[j], why, sizeof why) == -1) {
                    snprintf(err, errlen, "phase %u, rank %u: %s", p->id, s->ranks[r].rank, why);
                    rc = -1;
                }
        }
    for (size_t i = 0; i < u && !rc; i++)
        if ((rc = check_phase(s, ids[i], err, errlen)) && !strstr(err, "does not wrap")) {
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
        FILE *f = open_rank(dir, R->rank, s->np, R->kernel_rate, R->compute_blocked, path, sizeof path,
                            err, errlen);
        if (!f) {
            rc = -1;
            break;
        }
        for (uint32_t c = 0; c < s->ncomms; c++)
            write_comm(f, s->comms[c].id, s->comms[c].members, s->comms[c].size);
        for (size_t i = 0; i < u && !rc; i++) {
            const pas2p_sig_phase_t *p = find_phase(R, ids[i]);
            /* a phase of weight 1 ran once in the application, cold: replayed once, not
             * warmed up and repeated (cg's start-up phase is 15 % of its run).  So is a
             * variable phase's block of its first K occurrences in a row (`occ K`, FORMAT.md
             * skeleton_occurrences): a sample of K already, its first a warm-up for the rest,
             * and K of up to 16 occurrences replayed three times would cost more than the
             * application's own */
            const pas2p_sig_phase_t *rp = rep_phase(s, ids[i]);
            unsigned burst = burst_of(s, ids[i]);
            unsigned occ = rp && rp->skel_occ > 1 ? rp->skel_occ : 1;
            int once = rp && (rp->weight == 1 || occ > 1);
            fprintf(f, "phase %u %u%s", ids[i], burst, once ? " once" : "");
            /* a repetition of under SHORT_REP_S of base time: at least SHORT_REPS of them,
             * so that the median of the timed ones outlives two hiccups (NAS CG S: a 58 us
             * phase of weight 408, 2 timed repetitions of 1 ms, one of them preempted for
             * 8 ms: replay PET 3.7x the run) */
            if (rp && !once && (double)burst * rp->time_mean_s < SHORT_REP_S)
                fprintf(f, " reps %d", SHORT_REPS);
            if (occ > 1)
                fprintf(f, " occ %u", occ);
            const alias_t *A = al && p ? &al[r][p - R->phases] : NULL;
            for (uint32_t k = 0; A && k < A->n; k++)
                fprintf(f, "%s%u", k ? "," : " as ", A->ids[k]);
            fputc('\n', f);
            int oom = 0;
            uint8_t *skip = p ? not_replayed(s, R, p, &oom) : NULL;
            if (oom) {
                snprintf(err, errlen, "out of memory");
                rc = -1;
            }
            cancels_t pq = {0};
            for (uint32_t j = 0; p && j < p->nevents && !rc; j++) {
                const pas2p_sig_event_t *e = &p->events[j];
                /* a block of several occurrences (`occ K`): before each one after the first,
                 * every request still pending is completed, as at a block's end (nothing was
                 * pending there in the run; what a replay still holds, sends a test found done
                 * and no call says, would shift the positions of the next occurrence's waits) */
                if (j && e->occ_start) {
                    fputs("waitall\n", f);
                    pq.n = 0;
                }
                if (skip && skip[j]) { /* cancelled by the application, or never received */
                    write_compute(f, m, e);
                    continue;
                }
                vcounts_t vc = {0};
                pas2p_sig_event_t ew = *e;
                /* a Waitall of fewer requests than the block has pending completes as many
                 * (the oldest), not every one: adi's four receives, each waited for alone
                 * with computation between, were all awaited at the first (its sweep's
                 * overlap lost, replay +10 %) */
                if (e->call == PAS2P_CALL_Waitall && e->aux && e->aux < pq.n)
                    ew.call = PAS2P_CALL_Waitsome;
                int row = e->nstarts ? 0 : row_of(m, &ew, err, errlen);
                if ((row >= 0 || row == SILENT) && pending_note(&pq, &ew, j, row)) {
                    snprintf(err, errlen, "out of memory");
                    rc = -1;
                } else if (e->nstarts) { /* a Start: the isend or irecv of each request it starts */
                    rc = write_started(f, m, e, err, errlen);
                } else if (row < 0 || !has_counts(row) || !sig_counts(s, row, R->rank, p, j, &vc, err, errlen)) {
                    rc = write_event(f, m, &ew, &vc, err, errlen);
                } else {
                    rc = -1;
                }
                vcounts_free(&vc);
                if (rc) {
                    char why[512];
                    snprintf(why, sizeof why, "%s", err);
                    snprintf(err, errlen, "phase %u, rank %u: %s", ids[i], R->rank, why);
                }
            }
            free(skip);
            free(pq.post);
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

static int near(uint64_t a, uint64_t b, double tol, double floor_b)
{
    double x = (double)a, y = (double)b;
    return fabs(x - y) <= floor_b || fabs(x - y) <= tol * (x > y ? x : y);
}

/* the same calls with the same peers, tags, communicators and sizes (within tol, or the
 * size floor's bytes) */
static int same_skeleton(const pas2p_sig_phase_t *a, const pas2p_sig_phase_t *b, double tol,
                         double floor_b)
{
    if (a->nevents != b->nevents)
        return 0;
    for (uint32_t j = 0; j < a->nevents; j++) {
        const pas2p_sig_event_t *x = &a->events[j], *y = &b->events[j];
        if (x->call != y->call || x->peer != y->peer || x->tag != y->tag ||
            x->peer2 != y->peer2 || x->tag2 != y->tag2 || x->comm != y->comm ||
            x->aux != y->aux || !near(x->bytes, y->bytes, tol, floor_b) ||
            !near(x->rbytes, y->rbytes, tol, floor_b))
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
            while (g < M->nphases && !same_skeleton(&M->phases[g], p, tol, (double)s->size_floor))
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
                    G->events[j].wait_s *= w;
                    G->events[j].instructions *= w;
                }
                G->weight = 0;
                G->time_mean_s = G->compute_mean_s = G->instructions_mean = 0;
                M->nphases++;
            } else {
                for (uint32_t j = 0; j < p->nevents; j++) {
                    G->events[j].compute_s += w * p->events[j].compute_s;
                    G->events[j].wait_s += w * p->events[j].wait_s;
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
                G->events[j].wait_s /= w;
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

/* Ranks that called MPI from several threads at once (MPI_THREAD_MULTIPLE): their calls
 * are one sequence per rank here, in the order they ended, and a replay of one sequence
 * waits where the threads did not (PT-Scotch's dgord: two threads' collectives on two
 * communicators, interleaved in another order on each rank -- SimGrid's deadlock, replay's
 * watchdog).  Refused, saying why, before anything runs. */
static int threads_refused(uint32_t threads, char *err, size_t errlen)
{
    if (threads <= 1)
        return 0;
    snprintf(err, errlen, "the traced ranks called MPI from %u threads under "
             "MPI_THREAD_MULTIPLE (several at a time): replay and simulate run each rank's calls "
             "as one sequence, which would wait where the threads did not (a deadlock); pas2p "
             "predict runs the application itself", threads);
    return 1;
}

int pas2p_actions_from_signature(const pas2p_signature_t *s, enum pas2p_actions_for use,
                                 const char *dir, char *err, size_t errlen)
{
    if (errlen)
        err[0] = 0;
    if (threads_refused(s->mpi_threads, err, errlen))
        return -1;
    callmap_t map;
    callmap_init(&map);
    map.simulated = use == PAS2P_ACTIONS_FOR_SIMULATION;
    int rc = write_actions(s, &map, dir, NULL, err, errlen);
    if (!rc || !strstr(err, "cannot be replayed alone"))
        return rc;
    char why[1024];
    if (s->spmd) {
        pas2p_signature_t a = {0};
        int arc = align_to_representative(s, &a);
        if (!arc)
            arc = write_actions(&a, &map, dir, NULL, why, sizeof why);
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
        mrc = write_actions(&m, &map, dir, al, why, sizeof why);
    free_merged(&m, al);
    if (mrc)
        return rc; /* the first reason: the phases as the signature numbers them */
    snprintf(err, errlen, "the ranks number their phases differently (time variants split "
             "differently); each rank replays its phases with the same calls as one, their "
             "times weighted");
    return 0;
}

/* ------------------------------------------------------------------ full trace */

/* The per-peer counts of a v-collective event of a trace (action table row `row`), from
 * its payload (tracer/FORMAT.md "v-collectives": what MPI was given): alltoallv's send and
 * receive counts; the one list the others have (gatherv's and allgatherv's receive counts,
 * scatterv's send counts, reduce_scatter's receive counts); none at a non-root of a rooted
 * one (`-`).  0, or -1 with a reason. */
static int trace_counts(const pas2p_event_view_t *v, int row, vcounts_t *vc, char *err, size_t errlen)
{
    const pas2p_action_row_t *A = &pas2p_action_rows[row];
    const pas2p_vcounts_t *h = v->payload;
    memset(vc, 0, sizeof *vc);
    int ok = h && v->ev.payload >= sizeof *h &&
             sizeof *h + 8 * ((size_t)h->nsend + h->nrecv) <= v->ev.payload;
    uint32_t ns = ok ? h->nsend : 0, nr = ok ? h->nrecv : 0;
    if (A->fields == PAS2P_AF_VROOTED && !ns && !nr)
        return 0;
    if (A->fields == PAS2P_AF_VV ? !ns || !nr : !ns && !nr) {
        snprintf(err, errlen, "%s: the trace has no per-peer counts for it", name(v->ev.call));
        return -1;
    }
    const uint64_t *c = (const uint64_t *)(h + 1);
    uint32_t n[2] = {ns ? ns : nr, nr};
    const uint64_t *src[2] = {c, c + ns}; /* the first list present; the receive list */
    for (int k = 0; k < (A->fields == PAS2P_AF_VV ? 2 : 1); k++) {
        vc->c[k] = malloc(n[k] * sizeof *vc->c[k]);
        if (!vc->c[k]) {
            vcounts_free(vc);
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        memcpy(vc->c[k], src[k], n[k] * sizeof *vc->c[k]);
        vc->n[k] = n[k];
    }
    return 0;
}

/* A trace's persistent requests: the init events seen so far, by ordinal (increasing). */
typedef struct {
    struct pinit {
        uint64_t ordinal;
        pas2p_sig_event_t ev;
    } *init;
    size_t n, cap;
} pinits_t;

/* Persistent requests in a full trace: an init is remembered and written as its
 * computation only; a Start/Startall as the isend (irecv for Recv_init) of each request it
 * starts, in order, the Start's computation before the first.  0 done, 1 not such a call
 * (the caller writes it), -1 with a reason. */
static int persistent(pinits_t *P, FILE *f, const callmap_t *m, const pas2p_event_view_t *v,
                      const pas2p_sig_event_t *x, char *err, size_t errlen)
{
    if (is_init(x->call)) {
        if (P->n == P->cap) {
            size_t cap = P->cap ? 2 * P->cap : 16;
            struct pinit *q = realloc(P->init, cap * sizeof *q);
            if (!q) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            P->init = q;
            P->cap = cap;
        }
        P->init[P->n++] = (struct pinit){v->ordinal, *x};
        if (x->compute_s > 0)
            fprintf(f, "compute %.9g\n", x->compute_s);
        return 0;
    }
    if (x->call != PAS2P_CALL_Start && x->call != PAS2P_CALL_Startall)
        return 1;
    const uint64_t *ord = v->payload;
    if (!ord || v->ev.payload < 8 * (size_t)x->aux) {
        snprintf(err, errlen, "%s: the trace does not say which requests it starts", name(x->call));
        return -1;
    }
    for (uint32_t i = 0; i < x->aux; i++) {
        size_t lo = 0, hi = P->n;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (P->init[mid].ordinal < ord[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == P->n || P->init[lo].ordinal != ord[i]) {
            snprintf(err, errlen, "%s starts the request of event %llu, which is not a "
                     "persistent request's init", name(x->call), (unsigned long long)ord[i]);
            return -1;
        }
        pas2p_sig_event_t s = P->init[lo].ev;
        s.call = s.call == PAS2P_CALL_Recv_init ? PAS2P_CALL_Irecv : PAS2P_CALL_Isend;
        s.compute_s = i ? 0 : x->compute_s;
        if (write_event(f, m, &s, NULL, err, errlen))
            return -1;
    }
    return 0;
}

typedef struct {
    uint32_t id, size;
    int32_t *members;
} tcomm_t;

static int cancels_note(cancels_t *c, const pas2p_event_view_t *v)
{
    uint32_t n = 0;
    const pas2p_completion_t *d = pas2p_event_completions(v, &n);
    for (uint32_t i = 0; d && i < n; i++)
        if (d[i].call == PAS2P_CALL_Irecv && (d[i].flags & PAS2P_EV_ANY_SOURCE) &&
            d[i].source == PAS2P_PEER_ANY && d[i].post != UINT64_MAX && post_add(c, d[i].post))
            return -1;
    return 0;
}

/* the receives a completion event completed (cancelled ones too) */
static int completed_note(cancels_t *c, const pas2p_event_view_t *v)
{
    uint32_t n = 0;
    const pas2p_completion_t *d = pas2p_event_completions(v, &n);
    for (uint32_t i = 0; d && i < n; i++)
        if (d[i].call == PAS2P_CALL_Irecv && d[i].post != UINT64_MAX && post_add(c, d[i].post))
            return -1;
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The replayer's list of pending requests, as the full trace's actions leave it (post
 * ordinals, oldest first, from head): a successful test whose requests are the oldest k is
 * written `wait k`.  The run waited for them there (its failed polls are not replayed: their
 * time is computation), and as a `test` the replay ran on: ABySS's next receive was posted
 * before the message of the last had come, thousands piled up pending, and SimGrid, which
 * matches a message against every pending request in turn, took quadratic time. */
typedef struct {
    cancels_t q;             /* post ordinals; q.at: the oldest still pending */
    int exact;               /* 0: given up (persistent requests) */
} mirror_t;

static int is_test(uint32_t c)
{
    return c == PAS2P_CALL_Test || c == PAS2P_CALL_Testany || c == PAS2P_CALL_Testall ||
           c == PAS2P_CALL_Testsome;
}

/* an action written: its request, or the requests a `wait N` / `waitall` completed */
static int mirror_note(mirror_t *M, int row, const pas2p_sig_event_t *x, uint64_t ordinal)
{
    const pas2p_action_row_t *A = &pas2p_action_rows[row];
    cancels_t *q = &M->q;
    if (A->nb) {
        if (post_add(q, ordinal))
            return -1;
    } else if (A->fields == PAS2P_AF_COUNT && !strcmp(A->name, "wait") && x->wpos > 1 &&
               q->at + x->wpos <= q->n) { /* `wait 1 P`: the one at P */
        size_t j = q->at + x->wpos - 1;
        memmove(q->post + j, q->post + j + 1, (q->n - j - 1) * sizeof *q->post);
        q->n--;
    } else if (A->fields == PAS2P_AF_COUNT && !strcmp(A->name, "wait")) {
        size_t k = x->aux ? x->aux : 1;
        q->at = q->n - q->at < k ? q->n : q->at + k;
    } else if (!strcmp(A->name, "waitall")) {
        q->at = q->n;
    }
    if (q->at == q->n) /* empty: start again at the front */
        q->at = q->n = 0;
    return 0;
}

/* An MPI_Wait, MPI_Waitany or an MPI_Waitsome that completed one request (yorick's mpy:
 * a wildcard receive and a send, the Waitsome completes the send): where the request it
 * completed is among the pending ones
 * (x->wpos, 1 + its position; 0 when it is the oldest or not followed).  StarPU keeps a
 * wildcard MPI_Irecv posted while it waits for later requests one at a time: replayed as
 * "the oldest", the wait waited for that receive, whose message the peer sends only after
 * one this rank sends after the wait -- SimGrid's deadlock, replay's watchdog. */
static void wait_position(const mirror_t *M, const pas2p_event_view_t *v, pas2p_sig_event_t *x)
{
    uint32_t n = 0;
    const pas2p_completion_t *d = pas2p_event_completions(v, &n);
    const cancels_t *q = &M->q;
    if (!d || n != 1 || d[0].post == UINT64_MAX)
        return;
    for (size_t j = q->at; j < q->n; j++)
        if (q->post[j] == d[0].post) {
            x->wpos = j > q->at ? (uint32_t)(j - q->at + 1) : 0;
            return;
        }
}

/* a test (or a Waitall) that completed the k oldest pending requests (in any order)
 * becomes `wait k`; one that completed one receive, not the oldest, `wait 1 P`: the run
 * had polled for that message there (Graph500's BFS tests its receive while older sends
 * are pending), or waited for it alone (adi's MPI_Waitall(1) per chunk, once a `waitall`
 * of every pending request).  Replayed as a `test` the rank ran on without it, processing
 * data that had not come: Graph500 SCALE 13 on a two-node virtual cluster (200 Mbit/s),
 * its full trace simulated 0.51 s on the cluster's platform against 0.85 s measured
 * there; waiting, 0.81 s */
static void test_as_wait(mirror_t *M, const pas2p_event_view_t *v, pas2p_sig_event_t *x)
{
    uint32_t n = 0;
    const pas2p_completion_t *d = pas2p_event_completions(v, &n);
    const cancels_t *q = &M->q;
    size_t live = q->n - q->at;
    if (!d || !n || n > live || n > 64)
        return;
    for (uint32_t i = 0; i < n; i++) {
        size_t j = q->at;
        while (j < q->at + n && q->post[j] != d[i].post)
            j++;
        if (d[i].call == PAS2P_CALL_Irecv && d[i].source == PAS2P_PEER_ANY)
            return; /* cancelled */
        if (j < q->at + n)
            continue;
        if (n > 1 || d[0].call != PAS2P_CALL_Irecv)
            return; /* not among them (sends: the run did not wait for them there) */
        wait_position(M, v, x); /* that receive's place among the pending ones */
        if (x->wpos) {
            x->call = PAS2P_CALL_Wait;
            x->aux = 1;
        }
        return;
    }
    x->call = PAS2P_CALL_Waitsome;
    x->aux = n;
}

int pas2p_actions_from_trace(const char *trace_dir, const char *dir, uint64_t *events, char *err,
                             size_t errlen)
{
    pas2p_manifest_t m;
    callmap_t map;
    callmap_init(&map);
    *events = 0;
    if (pas2p_manifest_read(trace_dir, &m, err, errlen))
        return -1;
    if (threads_refused(pas2p_manifest_mpi_threads(&m), err, errlen)) {
        pas2p_manifest_free(&m);
        return -1;
    }
    tcomm_t *comms = NULL;
    uint32_t ncomms = 0;
    int rc = 0;
    uint64_t polls = 0, cancelled = 0; /* events of the trace not replayed */
    char path[PATH_MAX];
    cancels_t *cancels = calloc((size_t)(m.np > 0 ? m.np : 1), sizeof *cancels);
    if (!cancels) {
        pas2p_manifest_free(&m);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    /* pass 1: every communicator any rank created (members in communicator rank order), and
     * every rank's cancelled wildcard receives */
    for (int r = 0; r < m.np && !rc; r++) {
        pas2p_rank_path(trace_dir, r, path, sizeof path);
        pas2p_rank_reader_t *rd = pas2p_rank_reader_open(path, err, errlen);
        if (!rd) {
            rc = -1;
            break;
        }
        pas2p_event_view_t v;
        int k;
        cancels_t wild = {0}, done = {0}; /* receives posted; receives completed */
        while ((k = pas2p_rank_reader_next(rd, &v)) == 1) {
            if (pas2p_call_class(v.ev.call) == PAS2P_CLASS_COMPLETION && v.ev.payload &&
                (cancels_note(&cancels[r], &v) || completed_note(&done, &v))) {
                snprintf(err, errlen, "out of memory");
                rc = -1;
                break;
            }
            if (v.ev.call == PAS2P_CALL_Irecv && post_add(&wild, v.ordinal)) {
                snprintf(err, errlen, "out of memory");
                rc = -1;
                break;
            }
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
        /* a receive the rank never completed (ABySS posts one more MPI_Irecv from any
         * source before MPI_Finalize, which no message matches; mplrs one from each worker
         * for a message none sends): as a cancelled one, its computation only -- replayed,
         * the replay's waits, which complete the oldest pending requests, would wait for
         * it for ever */
        if (done.n)
            qsort(done.post, done.n, sizeof *done.post, cmp_u64);
        for (size_t i = 0, j = 0; i < wild.n && !rc; i++) {
            while (j < done.n && done.post[j] < wild.post[i])
                j++;
            if ((j == done.n || done.post[j] != wild.post[i]) && post_add(&cancels[r], wild.post[i])) {
                snprintf(err, errlen, "out of memory");
                rc = -1;
            }
        }
        free(wild.post);
        free(done.post);
        pas2p_rank_reader_close(rd);
    }
    /* pass 2: every event, in order; not the failed polls (an MPI_Test* or MPI_Iprobe that
     * found nothing, as a signature numbers calls), which SimGrid charges smpi/test each and
     * HPCC's RandomAccess makes 17 M of per rank: their time, the computation between them
     * and the calls themselves (RandomAccess: 114 ns each, 1.9 s of its 8.3 s per rank),
     * is the next call's computation; nor the cancelled receives, which no message would
     * ever complete */
    for (int r = 0; r < m.np && !rc; r++) {
        cancels_t *cz = &cancels[r];
        if (cz->n)
            qsort(cz->post, cz->n, sizeof *cz->post, cmp_u64);
        pas2p_rank_path(trace_dir, r, path, sizeof path);
        pas2p_rank_reader_t *rd = pas2p_rank_reader_open(path, err, errlen);
        if (!rd) {
            rc = -1;
            break;
        }
        char apath[4200];
        FILE *f = open_rank(dir, (uint32_t)r, (uint32_t)m.np, m.kernel_rate[r],
                            m.compute_blocked ? m.compute_blocked[r] : 0, apath, sizeof apath,
                            err, errlen);
        if (!f) {
            pas2p_rank_reader_close(rd);
            rc = -1;
            break;
        }
        for (uint32_t c = 0; c < ncomms; c++)
            write_comm(f, comms[c].id, comms[c].members, comms[c].size);
        pas2p_event_view_t v;
        int k;
        pinits_t pr = {0};
        mirror_t mirror = {.exact = 1};
        unsigned last = 0;
        uint64_t carried_ns = 0; /* the skipped polls' computation */
        while (!rc && (k = pas2p_rank_reader_next(rd, &v)) == 1) {
            const pas2p_event_t *e = &v.ev;
            (*events)++;
            if (pas2p_number_event(&last, e, 0) == PAS2P_NUM_POLL) {
                polls++;
                carried_ns += e->compute_ns + (e->t_end > e->t_start ? e->t_end - e->t_start : 0);
                continue;
            }
            pas2p_sig_event_t x = {.call = e->call, .peer = e->peer, .tag = e->tag,
                                   .peer2 = e->peer2, .tag2 = e->tag2, .comm = e->comm,
                                   .aux = e->aux, .bytes = e->bytes, .rbytes = e->rbytes,
                                   .compute_s = (double)(e->compute_ns + carried_ns) * 1e-9};
            carried_ns = 0;
            /* a wildcard receive is replayed as one, as the signature's are: the farm's
             * master takes its answers in the order they come on the target, not in the
             * base's (a blocking one was traced with the source it got) */
            if (e->call == PAS2P_CALL_Recv || e->call == PAS2P_CALL_Sendrecv ||
                e->call == PAS2P_CALL_Sendrecv_replace) {
                int32_t *src = e->call == PAS2P_CALL_Recv ? &x.peer : &x.peer2;
                int32_t *tag = e->call == PAS2P_CALL_Recv ? &x.tag : &x.tag2;
                if (e->flags & PAS2P_EV_ANY_SOURCE)
                    *src = PAS2P_PEER_ANY;
                if (e->flags & PAS2P_EV_ANY_TAG)
                    *tag = PAS2P_TAG_ANY;
            }
            while (cz->at < cz->n && cz->post[cz->at] < v.ordinal)
                cz->at++;
            if (e->call == PAS2P_CALL_Irecv && cz->at < cz->n && cz->post[cz->at] == v.ordinal) {
                write_compute(f, &map, &x); /* cancelled: its computation only */
                cancelled++;
                continue;
            }
            if (mirror.exact && (is_test(x.call) || x.call == PAS2P_CALL_Waitall))
                test_as_wait(&mirror, &v, &x); /* (a Waitall of the k oldest: `wait k`) */
            if (mirror.exact && (x.call == PAS2P_CALL_Wait || x.call == PAS2P_CALL_Waitany ||
                                 x.call == PAS2P_CALL_Waitsome))
                wait_position(&mirror, &v, &x);
            int wrc = persistent(&pr, f, &map, &v, &x, err, errlen);
            if (wrc == 1) {
                int row = row_of(&map, &x, err, errlen);
                vcounts_t vc = {0};
                wrc = row >= 0 && has_counts(row) ? trace_counts(&v, row, &vc, err, errlen) : 0;
                if (!wrc)
                    wrc = write_event(f, &map, &x, &vc, err, errlen);
                vcounts_free(&vc);
                if (!wrc && row >= 0 && row != SILENT && mirror_note(&mirror, row, &x, v.ordinal)) {
                    snprintf(err, errlen, "out of memory");
                    wrc = -1;
                }
            } else {
                mirror.exact = 0; /* (persistent requests: not followed) */
            }
            if (wrc) {
                char why[512];
                snprintf(why, sizeof why, "%s", err);
                snprintf(err, errlen, "rank %d, event %llu: %s", r, (unsigned long long)v.ordinal, why);
                rc = -1;
            }
        }
        free(pr.init);
        free(mirror.q.post);
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
    for (int r = 0; r < m.np; r++)
        free(cancels[r].post);
    free(cancels);
    pas2p_manifest_free(&m);
    if (!rc && (polls || cancelled)) { /* a note, as the signature's alignment is one */
        char a[96] = "", b[96] = "";
        if (polls)
            snprintf(a, sizeof a, "%llu failed polls (their time is the next call's computation)",
                     (unsigned long long)polls);
        if (cancelled)
            snprintf(b, sizeof b, "%s%llu receives cancelled or never completed",
                     polls ? ", " : "", (unsigned long long)cancelled);
        snprintf(err, errlen, "%llu of the trace's %llu events are not replayed: %s%s",
                 (unsigned long long)(polls + cancelled), (unsigned long long)*events, a, b);
    }
    return rc;
}

int pas2p_actions_dir(const pas2p_signature_t *sig, enum pas2p_actions_for use,
                      const char *trace_dir, const char *out_dir, char *actdir, size_t actlen,
                      uint64_t *events, char *err, size_t errlen)
{
    err[0] = 0;
    snprintf(actdir, actlen, "%s/actions", out_dir);
    if (mkdir(actdir, 0755) && errno != EEXIST) {
        snprintf(err, errlen, "%s: %s", actdir, strerror(errno));
        return -1;
    }
    if (sig)
        return pas2p_actions_from_signature(sig, use, actdir, err, errlen);
    return pas2p_actions_from_trace(trace_dir, actdir, events, err, errlen);
}
