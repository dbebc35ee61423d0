/* The signature's phases as SimGrid SMPI time-independent traces (pas2p_sim.h,
 * ACTIONS.md "Export"): pas2p's own actions are written first (DIR/actions/, with their
 * checks), then each phase block of each rank is rewritten in the stock vocabulary that
 * SimGrid's smpireplaymain reads. */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "action_table.h"
#include "pas2p_launch.h"
#include "pas2p_sim.h"
#include "pas2p_trace.h"

#define ANY_SOURCE_TI -555 /* SimGrid's MPI_ANY_SOURCE / MPI_ANY_TAG in a trace */
#define ANY_TAG_TI -444

typedef struct {
    int src, dst, tag;   /* the key smpireplaymain finds a request by */
} pend_t;

/* The source smpireplaymain (SimGrid 3.32) holds an any-source receive under: a request's
 * source pid - 1, MPI_ANY_SOURCE being -555.  A `wait -555 ...` finds no request and
 * returns at once: a farm's or Graph500's wildcard receives were never waited for, and
 * Graph500's exported replay took 0.27x `pas2p simulate`'s time. */
#define STOCK_ANY_KEY (ANY_SOURCE_TI - 1)

typedef struct {
    int rank, np;
    double speed;
    uint32_t *world;     /* communicator ids whose members are the world in order */
    size_t nworld;
    struct sub { uint32_t id; int n, *members; } *subs; /* the others: their world ranks */
    size_t nsubs;
    pend_t *pend;        /* pending requests, oldest first */
    size_t npend, cappend;
    unsigned phase;
    long line;
    char *err;
    size_t errlen;
    uint32_t (*alias)[3]; /* (rank, phase id, block): a merged block (`as`) stands for the id */
    size_t nalias;
} conv_t;

/* the block phase `id` of `rank` is exported under: itself, unless a merged block's `as`
 * names it */
static uint32_t block_of(const conv_t *C, uint32_t rank, uint32_t id)
{
    for (size_t i = 0; i < C->nalias; i++)
        if (C->alias[i][0] == rank && C->alias[i][1] == id)
            return C->alias[i][2];
    return id;
}

static int ti_peer(int p)
{
    return p == -2 ? ANY_SOURCE_TI : p;
}

static int ti_tag(int t)
{
    return t == -2 ? ANY_TAG_TI : t < 0 ? 0 : t;
}

static int push(conv_t *C, int src, int dst, int tag)
{
    if (src == ANY_SOURCE_TI)
        src = STOCK_ANY_KEY;
    if (C->npend == C->cappend) {
        size_t cap = C->cappend ? 2 * C->cappend : 64;
        pend_t *p = realloc(C->pend, cap * sizeof *p);
        if (!p) {
            snprintf(C->err, C->errlen, "out of memory");
            return -1;
        }
        C->pend = p;
        C->cappend = cap;
    }
    C->pend[C->npend++] = (pend_t){src, dst, tag};
    return 0;
}

/* waits for the n oldest pending requests, one stock `wait` each */
static void wait_at(conv_t *C, FILE *out, size_t pos, size_t n)
{
    if (pos + n > C->npend)
        pos = 0;
    if (n > C->npend)
        n = C->npend;
    if (!n)
        return;
    pend_t *q = C->pend + pos;
    for (size_t k = 0; k < n; k++)
        if (q[k].src != -3 && q[k].dst != -3) /* MPI_PROC_NULL: nothing to wait */
            fprintf(out, "%d wait %d %d %d\n", C->rank, q[k].src, q[k].dst, q[k].tag);
    memmove(q, q + n, (C->npend - pos - n) * sizeof *C->pend);
    C->npend -= n;
}


static int world_like(const conv_t *C, unsigned comm)
{
    if (comm == 0)
        return 1;
    for (size_t k = 0; k < C->nworld; k++)
        if (C->world[k] == comm)
            return 1;
    return 0;
}

/* ------------------------------------------------------------------ one action each
 * (the TI column of action_table.h): a's stock lines into out.  0, or -1 with a reason. */
#define TI_ARGS conv_t *C, const pas2p_action_t *a, FILE *out
#define UNUSED_TI_ARGS (void)C, (void)a, (void)out

static int ti_compute(TI_ARGS)
{
    if (a->seconds > 0)
        fprintf(out, "%d compute %.17g\n", C->rank, a->seconds * C->speed);
    return 0;
}

static int ti_p2p(TI_ARGS) /* send, isend, recv, irecv */
{
    const pas2p_action_row_t *A = &pas2p_action_rows[a->act];
    int r = C->rank, recv = A->bytes == PAS2P_B_RECEIVED;
    if (a->peer == -3 || a->peer == -1) /* MPI_PROC_NULL: no transfer, completes at once */
        return A->nb ? push(C, -3, -3, 0) : 0;
    int src = recv ? ti_peer(a->peer) : r, dst = recv ? r : a->peer;
    fprintf(out, "%d %s %d %d %lld\n", r, A->name, ti_peer(a->peer), ti_tag(a->tag), a->bytes);
    return A->nb ? push(C, src, dst, ti_tag(a->tag)) : 0;
}

static int ti_sendrecv(TI_ARGS)
{
    /* no stock sendrecv: post both, then wait for both (what MPI_Sendrecv does) */
    int r = C->rank;
    size_t before = C->npend;
    if (a->peer2 != -3 && a->peer2 != -1) {
        fprintf(out, "%d irecv %d %d %lld\n", r, ti_peer(a->peer2), ti_tag(a->tag2), a->rbytes);
        if (push(C, ti_peer(a->peer2), r, ti_tag(a->tag2)))
            return -1;
    }
    if (a->peer != -3 && a->peer != -1) {
        fprintf(out, "%d isend %d %d %lld\n", r, a->peer, ti_tag(a->tag), a->bytes);
        if (push(C, r, a->peer, ti_tag(a->tag)))
            return -1;
    }
    for (size_t k = before; k < C->npend; k++)
        fprintf(out, "%d wait %d %d %d\n", r, C->pend[k].src, C->pend[k].dst, C->pend[k].tag);
    C->npend = before;
    return 0;
}

static int ti_wait(TI_ARGS)
{
    wait_at(C, out, (size_t)a->pos, (size_t)a->bytes);
    return 0;
}

static int ti_waitall(TI_ARGS)
{
    UNUSED_TI_ARGS;
    if (C->npend)
        fprintf(out, "%d waitall\n", C->rank);
    C->npend = 0;
    return 0;
}

static int ti_drop(TI_ARGS) /* a test moves nothing; the receive after a probe does the waiting */
{
    UNUSED_TI_ARGS;
    return 0;
}

static int ti_phase(TI_ARGS) /* phase blocks are the files themselves (convert_rank) */
{
    UNUSED_TI_ARGS;
    snprintf(C->err, C->errlen, "phase %u, rank %d: a phase block inside another", C->phase, C->rank);
    return -1;
}

/* ------------------------------------------------------------------ sub-communicators
 * Stock collectives are on MPI_COMM_WORLD, with world ranks as roots.  A collective on a
 * communicator of fewer ranks, or of the world in another order (CP2K's Cartesian and
 * split grids, ScaLAPACK's row and column contexts), is written as the point-to-point
 * messages of a linear algorithm between its members' world ranks, tag SUB_TAG, each rank
 * posting all its sends and receives and then waiting for them: the same bytes between
 * the same ranks, a model of the algorithm (README limits).  One of a single rank moves
 * nothing and is left out. */
#define SUB_TAG 32767 /* (the smallest MPI_TAG_UB MPI allows) */

static const struct sub *sub_of(const conv_t *C, unsigned comm)
{
    for (size_t k = 0; k < C->nsubs; k++)
        if (C->subs[k].id == comm)
            return &C->subs[k];
    return NULL;
}

/* one message of a sub-communicator collective: posted, waited for by sub_wait */
static int sub_msg(conv_t *C, FILE *out, int send, int peer, long long bytes)
{
    int r = C->rank;
    if (peer == r)
        return 0;
    fprintf(out, "%d %s %d %d %lld\n", r, send ? "isend" : "irecv", peer, SUB_TAG, bytes);
    return push(C, send ? r : peer, send ? peer : r, SUB_TAG);
}

static void sub_wait(conv_t *C, FILE *out, size_t before)
{
    for (size_t k = before; k < C->npend; k++)
        fprintf(out, "%d wait %d %d %d\n", C->rank, C->pend[k].src, C->pend[k].dst, C->pend[k].tag);
    C->npend = before;
}

static long long count_at(const pas2p_action_t *a, int list, int i, long long dflt)
{
    return i < a->ncounts[list] ? a->counts[list][i] : dflt;
}

/* to: every member sends to `to`, or (to < 0) `from` sends to every member; bytes[i] is
 * member i's share (NULL: b each); steps of a linear algorithm */
static int sub_fan(conv_t *C, FILE *out, const struct sub *S, int me, int root, int in,
                   const pas2p_action_t *a, int list, long long b)
{
    for (int i = 0; i < S->n; i++) {
        long long bi = list >= 0 ? count_at(a, list, i, b) : b;
        if (in && me == root && S->members[i] != C->rank && sub_msg(C, out, 0, S->members[i], bi))
            return -1;
        if (in && me != root && i == root && sub_msg(C, out, 1, S->members[root], b))
            return -1;
        if (!in && me == root && S->members[i] != C->rank && sub_msg(C, out, 1, S->members[i], bi))
            return -1;
        if (!in && me != root && i == root && sub_msg(C, out, 0, S->members[root], b))
            return -1;
    }
    return 0;
}

/* a collective on sub-communicator S as point-to-point messages: 0, or -1 */
static int sub_coll(conv_t *C, const pas2p_action_t *a, const struct sub *S, FILE *out)
{
    int me = -1, root = 0;
    for (int i = 0; i < S->n; i++) {
        if (S->members[i] == C->rank)
            me = i;
        if (S->members[i] == a->peer)
            root = i;
    }
    if (me < 0) {
        snprintf(C->err, C->errlen, "phase %u, rank %d: '%s' on communicator %u, which does not "
                 "list this rank", C->phase, C->rank, pas2p_action_rows[a->act].name, a->comm);
        return -1;
    }
    if (S->n < 2)
        return 1; /* nothing between ranks */
    size_t before = C->npend;
    const char *n = pas2p_action_rows[a->act].name;
    int rc = 0;
    if (!strcmp(n, "barrier")) {
        rc = sub_fan(C, out, S, me, 0, 1, a, -1, 0);
        sub_wait(C, out, before);
        rc = rc || sub_fan(C, out, S, me, 0, 0, a, -1, 0);
    } else if (!strcmp(n, "bcast") || !strcmp(n, "scatter")) {
        rc = sub_fan(C, out, S, me, root, 0, a, -1, a->bytes);
    } else if (!strcmp(n, "reduce") || !strcmp(n, "gather")) {
        rc = sub_fan(C, out, S, me, root, 1, a, -1, a->bytes);
    } else if (!strcmp(n, "allreduce")) {
        rc = sub_fan(C, out, S, me, 0, 1, a, -1, a->bytes);
        sub_wait(C, out, before);
        rc = rc || sub_fan(C, out, S, me, 0, 0, a, -1, a->bytes);
    } else if (!strcmp(n, "gatherv")) { /* root: COUNTS from each */
        rc = sub_fan(C, out, S, me, root, 1, a, 0, a->bytes);
    } else if (!strcmp(n, "scatterv")) { /* root: COUNTS to each */
        rc = sub_fan(C, out, S, me, root, 0, a, 0, a->bytes);
    } else { /* everyone to everyone: allgather(v), alltoall(v), reduce_scatter(v) */
        for (int i = 0; i < S->n && !rc; i++) {
            int p = S->members[i];
            long long sb = a->bytes, rb = a->bytes;
            if (!strcmp(n, "allgatherv"))
                rb = count_at(a, 0, i, a->bytes);
            else if (!strcmp(n, "alltoallv"))
                sb = count_at(a, 0, i, 0), rb = count_at(a, 1, i, 0);
            else if (!strcmp(n, "reduce_scatterv"))
                sb = count_at(a, 0, i, 0), rb = count_at(a, 0, me, 0);
            rc = sub_msg(C, out, 0, p, rb) || sub_msg(C, out, 1, p, sb);
        }
    }
    sub_wait(C, out, before);
    return rc ? -1 : 1;
}

/* 0: a world collective, write the stock line; 1: written as messages (sub_coll); -1 */
static int world_coll(conv_t *C, const pas2p_action_t *a, FILE *out)
{
    if (world_like(C, a->comm))
        return 0;
    if (a->comm == PAS2P_COMM_SELF)
        return 1; /* this rank alone: nothing between ranks (PETSc's Bcasts on MPI_COMM_SELF) */
    const struct sub *S = sub_of(C, a->comm);
    if (S)
        return sub_coll(C, a, S, out);
    snprintf(C->err, C->errlen, "phase %u, rank %d: '%s' is on communicator %u, which the "
             "actions do not describe", C->phase, C->rank, pas2p_action_rows[a->act].name, a->comm);
    return -1;
}

/* COUNTS as np stock numbers (zeros for `-`: a non-root's, which MPI does not read) */
static void ti_counts(const conv_t *C, const pas2p_action_t *a, int k, FILE *out)
{
    for (int i = 0; i < C->np; i++)
        fprintf(out, " %lld", i < a->ncounts[k] ? a->counts[k][i] : 0);
}

static int ti_barrier(TI_ARGS)
{
    int w = world_coll(C, a, out);
    if (w)
        return w < 0 ? -1 : 0;
    fprintf(out, "%d barrier\n", C->rank);
    return 0;
}

static int ti_bcast(TI_ARGS)
{
    int w = world_coll(C, a, out);
    if (w)
        return w < 0 ? -1 : 0;
    fprintf(out, "%d bcast %lld %d\n", C->rank, a->bytes, a->peer);
    return 0;
}

static int ti_reduce(TI_ARGS)
{
    int w = world_coll(C, a, out);
    if (w)
        return w < 0 ? -1 : 0;
    fprintf(out, "%d reduce %lld 0 %d\n", C->rank, a->bytes, a->peer);
    return 0;
}

static int ti_allreduce(TI_ARGS)
{
    int w = world_coll(C, a, out);
    if (w)
        return w < 0 ? -1 : 0;
    fprintf(out, "%d allreduce %lld 0\n", C->rank, a->bytes);
    return 0;
}

static int ti_gather(TI_ARGS) /* gather, scatter */
{
    int w = world_coll(C, a, out);
    if (w)
        return w < 0 ? -1 : 0;
    fprintf(out, "%d %s %lld %lld %d\n", C->rank, pas2p_action_rows[a->act].name, a->bytes, a->bytes, a->peer);
    return 0;
}

static int ti_allgather(TI_ARGS) /* allgather, alltoall */
{
    int w = world_coll(C, a, out);
    if (w)
        return w < 0 ? -1 : 0;
    fprintf(out, "%d %s %lld %lld\n", C->rank, pas2p_action_rows[a->act].name, a->bytes, a->bytes);
    return 0;
}

static int ti_reduce_scatter(TI_ARGS)
{
    int w = world_coll(C, a, out);
    if (w)
        return w < 0 ? -1 : 0;
    fprintf(out, "%d reducescatter", C->rank);
    for (int k = 0; k < C->np; k++)
        fprintf(out, " %lld", a->bytes);
    fprintf(out, " 0\n");
    return 0;
}

static int ti_gatherv(TI_ARGS) /* R gatherv SENDCOUNT RECVCOUNTS... ROOT */
{
    int w = world_coll(C, a, out);
    if (w)
        return w < 0 ? -1 : 0;
    fprintf(out, "%d gatherv %lld", C->rank, a->bytes);
    ti_counts(C, a, 0, out);
    fprintf(out, " %d\n", a->peer);
    return 0;
}

static int ti_scatterv(TI_ARGS) /* R scatterv SENDCOUNTS... RECVCOUNT ROOT */
{
    int w = world_coll(C, a, out);
    if (w)
        return w < 0 ? -1 : 0;
    fprintf(out, "%d scatterv", C->rank);
    ti_counts(C, a, 0, out);
    fprintf(out, " %lld %d\n", a->bytes, a->peer);
    return 0;
}

static int ti_allgatherv(TI_ARGS) /* R allgatherv SENDCOUNT RECVCOUNTS... */
{
    int w = world_coll(C, a, out);
    if (w)
        return w < 0 ? -1 : 0;
    fprintf(out, "%d allgatherv %lld", C->rank, a->bytes);
    ti_counts(C, a, 0, out);
    fputc('\n', out);
    return 0;
}

static long long sum_of(const pas2p_action_t *a, int k)
{
    long long s = 0;
    for (int i = 0; i < a->ncounts[k]; i++)
        s += a->counts[k][i];
    return s;
}

static int ti_alltoallv(TI_ARGS) /* R alltoallv SENDBUF SENDCOUNTS... RECVBUF RECVCOUNTS... */
{
    int w = world_coll(C, a, out);
    if (w)
        return w < 0 ? -1 : 0;
    fprintf(out, "%d alltoallv %lld", C->rank, sum_of(a, 0));
    ti_counts(C, a, 0, out);
    fprintf(out, " %lld", sum_of(a, 1));
    ti_counts(C, a, 1, out);
    fputc('\n', out);
    return 0;
}

static int ti_reduce_scatterv(TI_ARGS) /* R reducescatter RECVCOUNTS... COMP */
{
    int w = world_coll(C, a, out);
    if (w)
        return w < 0 ? -1 : 0;
    fprintf(out, "%d reducescatter", C->rank);
    ti_counts(C, a, 0, out);
    fprintf(out, " 0\n");
    return 0;
}

typedef int (*ti_fn)(TI_ARGS);
static const struct {
    ti_fn fn;        /* NULL: no stock action */
    const char *why; /* then: why */
} ti[PAS2P_NACTIONS] = {
#define TI(fn) fn, NULL
#define NO_TI(why) NULL, PAS2P_TI_WHY_##why
#define ROW_(ID, name, f, nb, b, calls, run, t) {t},
    PAS2P_ACTIONS(ROW_)
#undef ROW_
#undef TI
#undef NO_TI
};

/* the MPI calls each action stands for (action_table.h's calls column) */
static const char *const calls_of[PAS2P_NACTIONS] = {
#define CALLS_(ID, name, f, nb, b, calls, run, t) calls,
    PAS2P_ACTIONS(CALLS_)
#undef CALLS_
};

/* a call whose action has no stock equivalent (a scan, a non-blocking collective) */
static int stock_less(unsigned call)
{
    const char *n = pas2p_call_name(call);
    if (!n || strncmp(n, "MPI_", 4))
        return 0;
    n += 4;
    size_t len = strlen(n);
    for (int k = 0; k < PAS2P_NACTIONS; k++)
        for (const char *c = calls_of[k]; !ti[k].fn && c && (c = strstr(c, n)); c += len)
            if ((c == calls_of[k] || c[-1] == ' ') && (c[len] == ' ' || !c[len]))
                return 1;
    return 0;
}

/* The phases replayed for their share of the messages or to cover the run (relevant 2, 3:
 * pas2p_signature_relevant_comm, _cover), not the analyzer's, that make a call stock
 * SimGrid cannot replay: left out (their time is the rest's, extrapolated) rather than
 * refuse the export: LAMMPS's set-up numbers its atoms with one MPI_Scan, in a phase the
 * message cover takes when its trace was made on a busy machine.  Returns how many. */
static uint32_t leave_out_stock_less(pas2p_signature_t *s)
{
    uint32_t n = 0;
    for (uint32_t r = 0; r < s->nranks; r++)
        for (uint32_t k = 0; k < s->ranks[r].nphases; k++) {
            const pas2p_sig_phase_t *p = &s->ranks[r].phases[k];
            int out = 0;
            for (uint32_t j = 0; p->relevant >= 2 && j < p->nevents && !out; j++)
                out = stock_less(p->events[j].call);
            if (!out)
                continue;
            n++;
            for (uint32_t q = 0; q < s->nranks; q++) /* (the phase on every rank) */
                for (uint32_t i = 0; i < s->ranks[q].nphases; i++)
                    if (s->ranks[q].phases[i].id == p->id)
                        s->ranks[q].phases[i].relevant = 0;
        }
    return n;
}

/* one pas2p action (its name and the rest of the line) as stock lines */
static int convert(conv_t *C, const char *w, const char *p, FILE *out)
{
    int k = pas2p_action_find(w);
    pas2p_action_t a;
    const char *why = k < 0 ? "is not a pas2p action" : !ti[k].fn ? ti[k].why
                      : !pas2p_action_parse(k, p, &a) ? "is malformed" : NULL;
    if (why) {
        snprintf(C->err, C->errlen, "phase %u, rank %d: '%s' %s: replay it with pas2p simulate",
                 C->phase, C->rank, w, why);
        return -1;
    }
    int rc = ti[k].fn(C, &a, out);
    pas2p_action_clear(&a);
    return rc;
}

/* rank r's action file into one stock trace per phase: DIR/phase-ID/rank-NNNNN.txt */
static int convert_rank(conv_t *C, const char *dir, char *err, size_t errlen)
{
    char path[PATH_MAX], line[1 << 16];
    snprintf(path, sizeof path, "%.3000s/actions/rank-%05d.act", dir, C->rank);
    FILE *in = fopen(path, "r"), *out = NULL;
    if (!in) {
        snprintf(err, errlen, "%.3000s: %s", path, strerror(errno));
        return -1;
    }
    int rc = 0;
    C->line = 0;
    while (!rc && fgets(line, sizeof line, in)) {
        char w[32];
        int off = 0;
        C->line++;
        if (sscanf(line, "%31s%n", w, &off) != 1 || C->line == 1 || !strcmp(w, "kernel_rate") ||
            !strcmp(w, "compute_blocked"))
            continue;
        const char *p = line + off;
        if (!strcmp(w, "comm")) { /* remember the ones that are the world in order */
            unsigned id;
            int n = 0, ok = 1, v;
            if (sscanf(p, "%u%n", &id, &n) != 1)
                continue;
            p += n;
            for (int k = 0; ok && k < C->np; k++) {
                if (sscanf(p, k ? ",%d%n" : " %d%n", &v, &n) != 1 || v != k)
                    ok = 0;
                p += n;
            }
            if (!ok || (*p != '\n' && *p)) { /* a sub-communicator: its members */
                char *e, *f;
                strtoul(line + off, &e, 10); /* past the id */
                int cap = 1, k = 0;
                for (const char *c = e; *c; c++)
                    cap += *c == ',';
                struct sub *x = realloc(C->subs, (C->nsubs + 1) * sizeof *x);
                int *m = malloc((size_t)cap * sizeof *m);
                if (x)
                    C->subs = x;
                if (!x || !m) {
                    free(m);
                    snprintf(err, errlen, "out of memory");
                    rc = -1;
                    break;
                }
                for (; k < cap; k++, e = f + 1) {
                    m[k] = (int)strtol(e, &f, 10);
                    if (f == e || *f != ',') {
                        k += f != e;
                        break;
                    }
                }
                C->subs[C->nsubs++] = (struct sub){id, k, m};
            }
            if (ok && (*p == '\n' || !*p)) {
                uint32_t *x = realloc(C->world, (C->nworld + 1) * sizeof *x);
                if (!x) {
                    snprintf(err, errlen, "out of memory");
                    rc = -1;
                    break;
                }
                C->world = x;
                C->world[C->nworld++] = id;
            }
        } else if (!strcmp(w, "phase")) {
            char tp[PATH_MAX];
            C->phase = (unsigned)strtoul(p, NULL, 10);
            const char *as = strstr(p, " as ");
            for (char *e = NULL; as && !rc; as = *e == ',' ? e : NULL) {
                unsigned long id = strtoul(as + (*as == ',' ? 1 : 4), &e, 10);
                uint32_t(*x)[3] = realloc(C->alias, (C->nalias + 1) * sizeof *x);
                if (!x) {
                    snprintf(err, errlen, "out of memory");
                    rc = -1;
                    break;
                }
                C->alias = x;
                C->alias[C->nalias][0] = (uint32_t)C->rank;
                C->alias[C->nalias][1] = (uint32_t)id;
                C->alias[C->nalias++][2] = C->phase;
            }
            if (rc)
                break;
            snprintf(tp, sizeof tp, "%.3000s/phase-%u", dir, C->phase);
            if (mkdir(tp, 0755) && errno != EEXIST) {
                snprintf(err, errlen, "%.3000s: %s", tp, strerror(errno));
                rc = -1;
                break;
            }
            snprintf(tp, sizeof tp, "%.3000s/phase-%u/rank-%05d.txt", dir, C->phase, C->rank);
            out = fopen(tp, "w");
            if (!out) {
                snprintf(err, errlen, "%.3000s: cannot write: %s", tp, strerror(errno));
                rc = -1;
                break;
            }
            fprintf(out, "%d init\n", C->rank);
            C->npend = 0;
        } else if (!strcmp(w, "end") && out) {
            if (C->npend)
                fprintf(out, "%d waitall\n", C->rank);
            fprintf(out, "%d finalize\n", C->rank);
            int bad = ferror(out);
            if (fclose(out) || bad) {
                snprintf(err, errlen, "%.3000s/phase-%u: cannot write (disk full?)", dir, C->phase);
                rc = -1;
            }
            out = NULL;
        } else if (out) {
            C->err = err;
            C->errlen = errlen;
            rc = convert(C, w, p, out);
        }
    }
    if (out)
        fclose(out);
    fclose(in);
    return rc;
}

static int write_text(const char *dir, const char *name, const char *text, int exec, char *err,
                      size_t errlen)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%.3000s/%s", dir, name);
    FILE *f = fopen(path, "w");
    int bad = !f || fputs(text, f) < 0;
    if (f && fclose(f))
        bad = 1;
    if (bad || (exec && chmod(path, 0755))) {
        snprintf(err, errlen, "%.3000s: cannot write", path);
        return -1;
    }
    return 0;
}

/* run.sh: replays each phase with smpireplaymain and combines them as the PET module does */
static const char run_sh[] =
    "#!/bin/sh\n"
    "# Replays each relevant phase of a pas2p signature with SimGrid's stock trace replayer and\n"
    "# combines them: for each rank R in weights.csv,\n"
    "#   PET_R = sum(T_phase x W) + rest x (sum(T_phase x W) / sum(base_phase x W))\n"
    "# and PET is the largest PET_R.  T_phase is the simulated time of the phase's block: one\n"
    "# occurrence, or a variable phase's first K in a row (its W and base time in weights.csv\n"
    "# are then W / K and K x the mean occurrence's).\n"
    "# usage: ./run.sh PLATFORM.xml [HOSTFILE]   (SMPIRUN, SMPIREPLAYMAIN override the tools)\n"
    "set -eu\n"
    "[ $# -ge 1 ] || { echo \"usage: $0 PLATFORM.xml [HOSTFILE]\" >&2; exit 2; }\n"
    "plat=$(readlink -f \"$1\"); hf=${2:+$(readlink -f \"$2\")}\n"
    "cd \"$(dirname \"$0\")\"\n"
    "np=$(cat np)\n"
    "run=${SMPIREPLAYMAIN:-$(ls /usr/lib/*/simgrid/smpireplaymain /usr/lib/simgrid/smpireplaymain "
    "/usr/local/lib/simgrid/smpireplaymain 2>/dev/null | head -n 1)}\n"
    "[ -x \"$run\" ] || { echo \"run.sh: smpireplaymain not found: set SMPIREPLAYMAIN\" >&2; exit 2; }\n"
    ": > times.csv\n"
    "for list in phase-*.txt; do\n"
    "  id=${list#phase-}; id=${id%.txt}\n"
    "  # the time: SimGrid's 'Simulated time: T seconds' (display-timing, 6 significant digits),\n"
    "  # else the largest of the ranks' 'Simulation time T' (6 decimals: 0 for a microsecond phase)\n"
    "  t=$(${SMPIRUN:-smpirun} -np \"$np\" -platform \"$plat\" ${hf:+-hostfile \"$hf\"} \\\n"
    "       --cfg=smpi/display-timing:yes --log=smpi_config.thres:warning --log=xbt_cfg.thres:warning \\\n"
    "       -replay \"$list\" \"$run\" 2>&1 | awk '/Simulated time: / { for (i = 1; i < NF; i++) if ($i == \"time:\") p = $(i + 1) }\n"
    "         /Simulation time / { for (i = 1; i < NF; i++) if ($i == \"time\" && $(i + 1) + 0 > m) m = $(i + 1) + 0 }\n"
    "         END { if (p != \"\") print p; else if (m != \"\") print m }')\n"
    "  [ -n \"$t\" ] || { echo \"run.sh: the replay of phase $id failed (run it by hand to see why)\" >&2; exit 1; }\n"
    "  echo \"$id,$t\" >> times.csv\n"
    "done\n"
    "awk -F, 'NR == FNR { t[$1] = $2; next }\n"
    "  FNR == 1 { next }\n"
    "  $2 == \"rest\" { rest[$1] = $4; ranks[$1] = 1; next }\n"
    "  { rel[$1] += t[$2] * $3; base[$1] += $4 * $3; ranks[$1] = 1 }\n"
    "  END { best = -1\n"
    "        for (r in ranks) { ratio = base[r] > 0 ? rel[r] / base[r] : 1\n"
    "                           p = rel[r] + rest[r] * ratio\n"
    "                           if (p > best) { best = p; br = r } }\n"
    "        printf \"PET = %.6f s (rank %s)\\n\", best, br }' times.csv weights.csv\n";

int pas2p_actions_export_ti(const pas2p_signature_t *sig, const char *dir, double base_speed,
                            char *err, size_t errlen)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%.3000s/actions", dir);
    if (mkdir(path, 0755) && errno != EEXIST) {
        snprintf(err, errlen, "%.3000s: %s", path, strerror(errno));
        return -1;
    }
    if (pas2p_actions_from_signature(sig, PAS2P_ACTIONS_FOR_SIMULATION, path, err, errlen))
        return -2; /* (a signature replay and simulate refuse too: their exit code) */
    conv_t C;
    memset(&C, 0, sizeof C);
    C.np = (int)sig->np;
    C.speed = base_speed;
    int rc = 0;
    for (uint32_t r = 0; r < sig->nranks && !rc; r++) {
        C.rank = (int)sig->ranks[r].rank;
        C.nworld = 0;
        for (size_t k = 0; k < C.nsubs; k++)
            free(C.subs[k].members);
        C.nsubs = 0;
        rc = convert_rank(&C, dir, err, errlen);
    }
    for (size_t k = 0; k < C.nsubs; k++)
        free(C.subs[k].members);
    free(C.subs);
    free(C.world);
    free(C.pend);
    if (rc) {
        free(C.alias);
        return -1;
    }

    /* the list files, np, weights of the ranks the PET comes from, run.sh, README */
    uint32_t rep = 0;
    while (rep < sig->nranks && sig->ranks[rep].rank != sig->representative)
        rep++;
    int spmd = sig->spmd || sig->nranks == 1;
    size_t cap = 1 << 16, len = 0;
    char *csv = malloc(cap), *tmp;
    if (!csv) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    len += (size_t)snprintf(csv, cap, "rank,phase,weight,base_s\n");
    for (uint32_t r = 0; r < sig->nranks && !rc; r++) {
        const pas2p_sig_rank_t *R = &sig->ranks[r];
        if (spmd && r != rep)
            continue;
        double rest = 0;
        for (uint32_t k = 0; k <= R->nphases; k++) {
            if (cap - len < 256 && (tmp = realloc(csv, cap *= 2)))
                csv = tmp;
            if (cap - len < 256) {
                snprintf(err, errlen, "out of memory");
                rc = -1;
                break;
            }
            if (k == R->nphases) {
                len += (size_t)snprintf(csv + len, cap - len, "%u,rest,1,%.9g\n", R->rank, rest);
                break;
            }
            const pas2p_sig_phase_t *p = &R->phases[k];
            if (!p->relevant)
                rest += p->time_mean_s * (double)p->weight;
            else if (p->skel_occ > 1) /* its block: its first K occurrences in a row, so
                                       * weight / K blocks of K x the mean base time */
                len += (size_t)snprintf(csv + len, cap - len, "%u,%u,%.9g,%.9g\n", R->rank,
                                        block_of(&C, R->rank, p->id),
                                        (double)p->weight / p->skel_occ,
                                        p->time_mean_s * p->skel_occ);
            else /* under its block: a merged block's phases are rows of one phase-K */
                len += (size_t)snprintf(csv + len, cap - len, "%u,%u,%llu,%.9g\n", R->rank,
                                        block_of(&C, R->rank, p->id),
                                        (unsigned long long)p->weight, p->time_mean_s);
        }
    }
    char np[32], readme[4096];
    snprintf(np, sizeof np, "%u\n", sig->np);
    snprintf(readme, sizeof readme,
             "pas2p signature exported as SimGrid SMPI time-independent traces\n"
             "application: %.1000s (np %u)\n"
             "computation: base seconds x %.6g flop/s\n\n"
             "phase-ID/rank-NNNNN.txt  one occurrence of relevant phase ID (a variable phase:\n"
             "                         its first K in a row), per rank (stock\n"
             "                         actions: init, compute, send, isend, recv, irecv, wait,\n"
             "                         waitall, barrier, bcast, reduce, allreduce, gather,\n"
             "                         scatter, allgather, alltoall, reducescatter, gatherv,\n"
             "                         scatterv, allgatherv, alltoallv, finalize)\n"
             "phase-ID.txt             the list file for smpirun -replay\n"
             "weights.csv              rank, phase, weight, base time (s) of the block (a\n"
             "                         block of K occurrences: weight / K, K x the mean);\n"
             "                         'rest' = the base time of the non-relevant phases\n"
             "run.sh PLATFORM [HOSTS]  replays every phase and prints PET\n"
             "actions/                 the same phases in pas2p's own action format\n\n"
             "One phase by hand: smpirun -np %u -platform P.xml -replay phase-ID.txt \\\n"
             "  /usr/lib/x86_64-linux-gnu/simgrid/smpireplaymain  (prints 'Simulation time T')\n"
             "PET = sum over phases of T x weight + rest x (sum T x weight / sum base x weight).\n"
             "A sub-communicator's point-to-point traffic is kept (peers are world ranks);\n"
             "probes and tests, which move no data, are dropped.\n\n"
             "Against `pas2p simulate SIG --platform P -o D` on the same platform: export\n"
             "with --base-speed set to the base speed simulate prints for P (by default the\n"
             "first host's speed, or the trace's kernel calibration on a calibrated platform),\n"
             "and pass D/hostfile to run.sh (simulate's default --map block fills each host's\n"
             "cores; smpirun without a hostfile puts one rank per host).\n",
             sig->command, sig->np, base_speed, sig->np);
    if (!rc)
        rc = write_text(dir, "weights.csv", csv, 0, err, errlen) ||
             write_text(dir, "np", np, 0, err, errlen) ||
             write_text(dir, "run.sh", run_sh, 1, err, errlen) ||
             write_text(dir, "README", readme, 0, err, errlen) ? -1 : 0;
    free(csv);
    /* list files: every phase directory that was made */
    for (uint32_t r = 0; r < sig->nranks && !rc; r++)
        for (uint32_t k = 0; k < sig->ranks[r].nphases && !rc; k++) {
            const pas2p_sig_phase_t *p = &sig->ranks[r].phases[k];
            char name[64], *list;
            if (!p->relevant)
                continue;
            uint32_t b = block_of(&C, sig->ranks[r].rank, p->id);
            snprintf(name, sizeof name, "phase-%u.txt", b);
            snprintf(path, sizeof path, "%.3000s/%s", dir, name);
            struct stat st;
            if (!stat(path, &st))
                continue;
            list = malloc((size_t)sig->np * 40 + 1);
            if (!list) {
                snprintf(err, errlen, "out of memory");
                rc = -1;
                break;
            }
            size_t at = 0;
            for (uint32_t q = 0; q < sig->np; q++)
                at += (size_t)sprintf(list + at, "phase-%u/rank-%05u.txt\n", b, q);
            rc = write_text(dir, name, list, 0, err, errlen);
            free(list);
        }
    free(C.alias);
    return rc;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

int pas2p_actions_export_file(const char *sig_path, const char *dir, double base_speed,
                              char *err, size_t errlen)
{
    pas2p_signature_t sig;
    if (pas2p_signature_read(sig_path, &sig, err, errlen))
        return 2;
    /* the phases simulate and replay replay (pas2p_pipeline.h: comm_relevant) */
    pas2p_signature_relevant_comm(&sig, sig.relevance > 0 ? sig.relevance : 0.01);
    pas2p_signature_relevant_cover(&sig, PAS2P_REPLAY_COVER, NULL);
    uint32_t left = leave_out_stock_less(&sig);
    if (left)
        printf("note: %u phase(s) that simulate and replay take for their share of the messages "
               "or to cover the run make calls stock SimGrid cannot replay (a scan, a "
               "non-blocking collective): left out of the export, their time extrapolated "
               "with the rest\n", left);
    int rc = 0;
    if (pas2p_prepare_dir_err(dir, err, errlen)) {
        rc = 2;
    } else if ((rc = pas2p_actions_export_ti(&sig, dir, base_speed, err, errlen))) {
        rc = rc == -2 ? 2 : 1;
        /* a refusal (a call stock SimGrid cannot replay) comes with phases written: the
         * directory, empty or new before, is removed, so that the same command can run
         * again once the cause is gone (it said "not empty") */
        nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    }
    pas2p_signature_free(&sig);
    return rc;
}
