/* The action replayer (simbackend/ACTIONS.md): one MPI program that reads its rank's action
 * file and issues the MPI calls itself.  One source, two builds:
 *
 *   pas2p-simreplay ACTIONS_DIR OUT_DIR REPS FLOPS_PER_S|kernel   (smpicc, -DPAS2P_SIMGRID)
 *   pas2p-replayer  ACTIONS_DIR OUT_DIR REPS kernel|sleep    (mpicc: real MPI)
 *
 * Inside SimGrid, computation becomes smpi_execute_flops(seconds x FLOPS_PER_S) on the
 * simulated host (`kernel`: FLOPS_PER_S is the rank's own base speed, its `kernel_rate` x
 * PAS2P_KERNEL_FLOPS_PER_BLOCK) and MPI_Wtime is the simulated clock (run with
 * smpi/simulate-computation:no, so the replayer's own work costs nothing).  With real MPI,
 * `kernel` runs the calibrated compute kernel (tracer/pas2p_kernel.h: seconds x the base
 * rate of the file's `kernel_rate` line, in blocks), `sleep` waits out the base seconds on
 * the clock (spinning, as a computing rank holds its core): the network alone is measured.
 *
 * A phase block (`phase ID [BURST] [once] [reps N]` ... `end`) is replayed REPS times
 * (`once`: one time; `reps N`: at least N times with real MPI), each after an MPI_Barrier
 * on MPI_COMM_WORLD: BURST occurrences back to back (default 1), timed from the barrier
 * to the completion of the last one's calls and requests, and reported per occurrence
 * (the time / BURST).  Inside SimGrid the
 * repetition starts at one instant on every rank instead and its time is the slice's, to
 * its last rank's completion (start_together, slice_time).  The first of several
 * repetitions warms up the network (its computation skipped) and is not reported.  With
 * real MPI a phase whose timed repetitions disagree is replayed again, all ranks deciding
 * together (pas2p_times_unsteady), up to twice the planned timed ones and one.  Test hook:
 * PAS2P_REPLAY_TEST_HICCUP=ID:SECONDS makes rank 0's first timed repetition of phase ID
 * that much longer (tests/replay_unsteady.sh).
 * Actions outside blocks (a full trace) run once, in order.  Each rank writes
 * OUT_DIR/rank-NNNNN.times in the signature-mode layout (tracer/FORMAT.md), with the one
 * writer of that file (signature/pas2p_times.h, self-contained).
 *
 * No global state: SimGrid runs every rank as a thread of one process.
 */
#include <fcntl.h>
#include <limits.h>
#include <mpi.h>
#ifndef PAS2P_SIMGRID
#include <pthread.h>
#endif
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "action_table.h"
#include "pas2p_kernel.h"
#include "pas2p_times.h"
#ifdef PAS2P_SIMGRID
#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <smpi/smpi.h>
#define PROG "pas2p-simreplay"
#else
#define PROG "pas2p-replayer"
#endif

/* One parsed action (the fields of its line: action_table.h), with a v-collective's
 * counts as MPI takes them. */
typedef struct {
    int act;                 /* enum pas2p_action (action_table.h) */
    int nb;                  /* posts a request */
    int peer, tag, peer2, tag2;
    unsigned comm;           /* communicator id; for a phase: its id */
    long long bytes, rbytes; /* wait: how many requests */
    long long pos;           /* wait: where they start among the pending ones (0: oldest) */
    double seconds;
    int n;                   /* v-collectives: entries per list, 0 for `-` */
    int dbl;                 /* reduce_scatterv: counts are doubles (every one a multiple of 8) */
    int *v;                  /* counts, displacements (of list 0), counts, displacements (list 1) */
    long long sum[2];        /* bytes in each list */
} action_t;

typedef struct {
    unsigned id;
    MPI_Comm comm;           /* MPI_COMM_NULL if this rank is not a member */
    int size;
    int *members;            /* world ranks, communicator rank order */
} comm_t;

typedef struct {
    int rank, np;
    double flops_per_s;      /* SimGrid: the base speed */
    int kernel;              /* real MPI: 1 kernel, 0 sleep */
    double kernel_rate;      /* real MPI: kernel blocks/s on the base (the file's line) */
    double blocked;          /* compute_blocked: of each computation's base seconds, the share
                                the rank was blocked off the CPU (kept as waiting) */
    double sink;             /* keeps the kernel's result alive */
    action_t *a;
    size_t na;
    comm_t *comms;
    size_t ncomms;
    comm_t self;             /* MPI_COMM_SELF: this rank alone (a root is a world rank) */
    int self_member;
    MPI_Request *req;        /* pending, oldest first; MPI_REQUEST_NULL: done (a `test`),
                                a place that still counts among the oldest */
    size_t nreq, capreq;
    size_t live_from;        /* req[< live_from] are all done */
    int *idx;                /* MPI_Testsome's indices */
    char *sbuf, *rbuf;
    int bufsz;                /* their size: the largest message of any action */
    long long events;
    unsigned *alias;         /* phase blocks' `as` ids, all blocks in a row */
    size_t nalias;
    unsigned phase;          /* the phase block being replayed (said when stuck) */
    double probe_limit_s;    /* SimGrid: simulated seconds one probe may wait (run_probe) */
    unsigned hiccup_phase;   /* test hook PAS2P_REPLAY_TEST_HICCUP=ID:SECONDS (real MPI): */
    double hiccup_s;         /* rank 0's first timed repetition of phase ID lasts SECONDS
                                longer (0: none) */
} replay_t;

static void die(replay_t *R, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void die(replay_t *R, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, PROG ": rank %d: ", R->rank);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}

static void *xrealloc(replay_t *R, void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        die(R, "out of memory (%zu bytes)", n);
    return q;
}

/* ------------------------------------------------------------------ reading */

/* `phase ID [BURST] [once] [reps N] [occ K] [as ID,ID...]`: comm = ID, bytes = BURST (default
 * 1), peer 1 = once, n = N (at least N repetitions with real MPI; 0: REPS), rbytes = K (the
 * occurrences the block's events are in a row: a repetition's time is K's), and the ids the
 * block's times are reported under (`as`: a block that stands for several phases of this
 * rank; default ID) appended to R->alias, tag = where they start, tag2 = how many.  1, or
 * 0 when malformed. */
static int phase_header(replay_t *R, action_t *a, const char *p)
{
    char *end;
    unsigned long id = strtoul(p, &end, 10);
    if (end == p || id > UINT32_MAX)
        return 0;
    a->comm = (unsigned)id;
    a->bytes = 1;
    a->rbytes = 1;
    p = end;
    long long burst = strtoll(p, &end, 10);
    if (end != p) {
        if (burst < 1 || burst > 1000000)
            return 0;
        a->bytes = burst;
        p = end;
    }
    p += strspn(p, " \t");
    if (!strncmp(p, "once", 4) && (p[4] == 0 || p[4] == ' ' || p[4] == '\n')) {
        a->peer = 1;
        p += 4 + strspn(p + 4, " \t");
    }
    a->n = 0;
    if (!strncmp(p, "reps ", 5)) {
        long n = strtol(p + 5, &end, 10);
        if (end == p + 5 || n < 1 || n > 16)
            return 0;
        a->n = (int)n;
        p = end + strspn(end, " \t");
    }
    if (!strncmp(p, "occ ", 4)) {
        long long k = strtoll(p + 4, &end, 10);
        if (end == p + 4 || k < 1 || k > 1000000)
            return 0;
        a->rbytes = k;
        p = end + strspn(end, " \t");
    }
    a->tag = (int)R->nalias;
    a->tag2 = 0;
    if (!strncmp(p, "as ", 3)) {
        p += 3;
        do {
            unsigned long v = strtoul(p, &end, 10);
            if (end == p || v > UINT32_MAX)
                return 0;
            R->alias = xrealloc(R, R->alias, (R->nalias + 1) * sizeof *R->alias);
            R->alias[R->nalias++] = (unsigned)v;
            a->tag2++;
            p = *end == ',' ? end + 1 : end;
        } while (*end == ',');
    }
    p += strspn(p, " \t\r\n");
    return *p == 0;
}

/* A v-collective's COUNTS lists as int counts and displacements (a->v); reduce_scatterv's
 * in doubles when every count allows.  1, or 0 when they do not fit an int or the two
 * lists of an alltoallv differ in length. */
static int counts_of(replay_t *R, action_t *a, const pas2p_action_t *x)
{
    int lists = x->counts[1] ? 2 : x->counts[0] ? 1 : 0;
    if (!lists)
        return 1;
    if (lists == 2 && x->ncounts[0] != x->ncounts[1])
        return 0;
    int n = a->n = x->ncounts[0];
    a->dbl = pas2p_action_rows[a->act].fields == PAS2P_AF_VCOUNTS;
    for (int i = 0; i < n; i++)
        a->dbl = a->dbl && x->counts[0][i] % 8 == 0;
    a->v = xrealloc(R, NULL, 4 * (size_t)n * sizeof *a->v);
    for (int k = 0; k < lists; k++) {
        long long d = 0;
        for (int i = 0; i < n; i++) {
            long long c = a->dbl ? x->counts[k][i] / 8 : x->counts[k][i];
            if (c > INT_MAX || d > INT_MAX)
                return 0;
            a->v[2 * k * n + i] = (int)c;
            a->v[(2 * k + 1) * n + i] = (int)d;
            d += c;
            a->sum[k] += x->counts[k][i];
        }
    }
    return 1;
}

static void parse(replay_t *R, const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%.4000s/rank-%05d.act", dir, R->rank);
    FILE *f = fopen(path, "r");
    if (!f)
        die(R, "%s: cannot open", path);
    char line[1 << 16];
    long ln = 0;
    size_t cap = 0;
    unsigned ver = 0, frank = 0, fnp = 0;
    if (!fgets(line, sizeof line, f) ||
        sscanf(line, "pas2p-actions %u rank %u np %u", &ver, &frank, &fnp) != 3 || ver != 1)
        die(R, "%s: not a pas2p action file version 1", path);
    if ((int)frank != R->rank || (int)fnp != R->np)
        die(R, "%s: written for rank %u of %u", path, frank, fnp);
    ln = 1;
    while (fgets(line, sizeof line, f)) {
        ln++;
        char word[32];
        int off = 0;
        if (line[0] == '#' || line[0] == '\n' || sscanf(line, "%31s%n", word, &off) != 1)
            continue;
        const char *p = line + off;
        if (!strcmp(word, "kernel_rate")) {
            if (sscanf(p, "%lf", &R->kernel_rate) != 1 || !(R->kernel_rate > 0))
                die(R, "malformed '%s' line at line %ld", word, ln);
            continue;
        }
        if (!strcmp(word, "compute_blocked")) {
            if (sscanf(p, "%lf", &R->blocked) != 1 || !(R->blocked > 0 && R->blocked < 1))
                die(R, "malformed '%s' line at line %ld", word, ln);
            continue;
        }
        if (!strcmp(word, "comm")) {
            comm_t c = {0};
            const char *q = p;
            char *end;
            c.id = (unsigned)strtoul(q, &end, 10);
            q = end;
            int n = 1;
            for (const char *s = q; *s; s++)
                n += *s == ',';
            c.members = xrealloc(R, NULL, (size_t)n * sizeof *c.members);
            c.size = 0;
            while (*q && *q != '\n') {
                long v = strtol(q, &end, 10);
                if (end == q)
                    break;
                c.members[c.size++] = (int)v;
                q = *end == ',' ? end + 1 : end;
            }
            R->comms = xrealloc(R, R->comms, (R->ncomms + 1) * sizeof *R->comms);
            R->comms[R->ncomms++] = c;
            continue;
        }
        int k = pas2p_action_find(word);
        if (k < 0)
            die(R, "unknown action '%s' at line %ld", word, ln);
        if (R->na == cap) {
            cap = cap ? 2 * cap : 1024;
            R->a = xrealloc(R, R->a, cap * sizeof *R->a);
        }
        action_t *a = &R->a[R->na++];
        memset(a, 0, sizeof *a);
        pas2p_action_t x;
        int ok = pas2p_action_parse(k, p, &x);
        if (ok) {
            a->act = k;
            a->nb = pas2p_action_rows[k].nb;
            a->peer = x.peer, a->tag = x.tag, a->peer2 = x.peer2, a->tag2 = x.tag2;
            a->comm = x.comm, a->bytes = x.bytes, a->rbytes = x.rbytes, a->seconds = x.seconds;
            a->pos = x.pos;
            ok = counts_of(R, a, &x);
            pas2p_action_clear(&x);
        }
        if (ok && pas2p_action_rows[k].fields == PAS2P_AF_PHASE) /* phase ID [BURST] [once] [reps N] [occ K] [as ...] */
            ok = phase_header(R, a, p);
        if (!ok)
            die(R, "malformed '%s' action at line %ld", word, ln);
    }
    if (ferror(f))
        die(R, "%s: read error at line %ld", path, ln);
    fclose(f);
}

/* Rank 0 reads the np its file was written for; every rank learns whether this launch has
 * it, so a wrong -np ends cleanly everywhere (some ranks would have no file at all) with
 * one line from rank 0: into OUT_DIR/replay.error, which pas2p reports (the launcher stays
 * quiet about ranks that exit 0), else on stderr. */
static int check_np(replay_t *R, const char *dir, const char *out)
{
    int want = -1;
    if (R->rank == 0) {
        char path[4200], line[256];
        snprintf(path, sizeof path, "%.4000s/rank-%05d.act", dir, 0);
        FILE *f = fopen(path, "r");
        unsigned ver, frank, fnp;
        if (f && fgets(line, sizeof line, f) &&
            sscanf(line, "pas2p-actions %u rank %u np %u", &ver, &frank, &fnp) == 3)
            want = (int)fnp;
        if (f)
            fclose(f);
        if (want < 0)
            want = R->np; /* unreadable: parse() says why */
    }
    MPI_Bcast(&want, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (want == R->np)
        return 0;
    if (R->rank == 0) {
        char path[4200];
        snprintf(path, sizeof path, "%.4000s/replay.error", out);
        FILE *f = fopen(path, "w");
        fprintf(f ? f : stderr, "the actions are for %d ranks, this launch started %d: launch "
                "with -np %d\n", want, R->np, want);
        if (f)
            fclose(f);
    }
    return -1;
}

/* ------------------------------------------------------------------ communicators */

static void make_comms(replay_t *R)
{
    /* every rank lists the same communicators in the same order: split the world once each */
    for (size_t i = 0; i < R->ncomms; i++) {
        comm_t *c = &R->comms[i];
        int pos = -1;
        for (int k = 0; k < c->size; k++)
            if (c->members[k] == R->rank)
                pos = k;
        MPI_Comm_split(MPI_COMM_WORLD, pos >= 0 ? 0 : MPI_UNDEFINED, pos, &c->comm);
    }
}

/* the communicator and this rank's translation of world rank `w` in it */
static MPI_Comm comm_of(replay_t *R, unsigned id, const comm_t **out)
{
    *out = NULL;
    if (id == 0)
        return MPI_COMM_WORLD;
    if (id == 1) { /* a root on it is this rank's world rank (HPCC's MPI_Gather on
                      MPI_COMM_SELF, root 1 on rank 1): comm rank 0 */
        R->self_member = R->rank;
        R->self = (comm_t){.id = 1, .comm = MPI_COMM_SELF, .size = 1, .members = &R->self_member};
        *out = &R->self;
        return MPI_COMM_SELF;
    }
    for (size_t i = 0; i < R->ncomms; i++)
        if (R->comms[i].id == id) {
            if (R->comms[i].comm == MPI_COMM_NULL)
                die(R, "an action uses communicator %u, of which this rank is not a member", id);
            *out = &R->comms[i];
            return R->comms[i].comm;
        }
    die(R, "an action uses communicator %u, which the file does not define", id);
    return MPI_COMM_NULL;
}

static int peer_in(replay_t *R, const comm_t *c, int w)
{
    if (w == -2)
        return MPI_ANY_SOURCE;
    if (w == -3 || w == -1)
        return MPI_PROC_NULL;
    if (!c)
        return w;
    for (int k = 0; k < c->size; k++)
        if (c->members[k] == w)
            return k;
    die(R, "world rank %d is not in the action's communicator", w);
    return MPI_PROC_NULL;
}

static int tag_of(int t)
{
    return t == -2 ? MPI_ANY_TAG : t < 0 ? 0 : t;
}

/* ------------------------------------------------------------------ replaying */

/* The pending requests that are done become MPI_REQUEST_NULL in place (each keeps its
 * place among the oldest for a later `wait N`), and live_from moves past those done. */
static void sweep(replay_t *R)
{
    int n = (int)(R->nreq - R->live_from), out = 0;
    if (n > 0)
        MPI_Testsome(n, R->req + R->live_from, &out, R->idx, MPI_STATUSES_IGNORE);
    while (R->live_from < R->nreq && R->req[R->live_from] == MPI_REQUEST_NULL)
        R->live_from++;
}

static MPI_Request *new_req(replay_t *R)
{
    if (R->nreq == R->capreq) {
        R->capreq = R->capreq ? 2 * R->capreq : 64;
        R->req = xrealloc(R, R->req, R->capreq * sizeof *R->req);
        R->idx = xrealloc(R, R->idx, R->capreq * sizeof *R->idx);
    }
    return &R->req[R->nreq++];
}

/* the n pending requests from position pos (0: the oldest); where they are not all there,
 * the n oldest */
static void complete_at(replay_t *R, size_t pos, size_t n)
{
    if (pos + n > R->nreq)
        pos = 0;
    if (n > R->nreq)
        n = R->nreq;
    if (!n)
        return;
    MPI_Request *q = R->req + pos;
#ifdef PAS2P_SIMGRID
    /* one at a time, in order: SMPI's MPI_Waitall is a MPI_Waitany per request, each over
     * all of them, and a phase that posts 116 000 wildcard receives before it completes
     * them (ABySS's: its MPI_Test calls are polls in a signature) did not end in 20
     * minutes.  The last to complete decides the time either way. */
    for (size_t i = 0; i < n; i++)
        if (q[i] != MPI_REQUEST_NULL)
            MPI_Wait(&q[i], MPI_STATUS_IGNORE);
#else
    MPI_Waitall((int)n, q, MPI_STATUSES_IGNORE);
#endif
    memmove(q, q + n, (R->nreq - pos - n) * sizeof *R->req);
    R->nreq -= n;
    if (R->live_from > pos) /* (the ones before pos are as they were) */
        R->live_from = R->live_from > pos + n ? R->live_from - n : pos;
    while (R->live_from < R->nreq && R->req[R->live_from] == MPI_REQUEST_NULL)
        R->live_from++;
}

static void complete(replay_t *R, size_t n) /* the n oldest pending requests */
{
    complete_at(R, 0, n);
}

#ifndef PAS2P_SIMGRID
/* s seconds of wall time, on the CPU (a sleep overshoots by tens of microseconds, and a
 * phase has thousands of computations) */
static void wait_out(double s)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec) < s);
}
#endif

/* s base seconds of computation.  With kernel speeds (the kernel, or SimGrid's `kernel`
 * base speed) the rank's CPU work is s x its kernel_rate, which holds its share of a core;
 * the share of s it was blocked off the CPU (compute_blocked: I/O, a child process, sleep)
 * is waited out as time, which a faster CPU does not shorten.  Otherwise (sleep, a given
 * base speed) s is taken whole. */
static void compute(replay_t *R, double s)
{
#ifdef PAS2P_SIMGRID
    smpi_execute_flops(s * R->flops_per_s);
    if (R->blocked > 0)
        sg_actor_sleep_for(s * R->blocked);
#else
    if (R->kernel) {
        R->sink += pas2p_kernel_run((uint64_t)(s * R->kernel_rate + 0.5), R->sink);
        if (R->blocked > 0)
            wait_out(s * R->blocked);
        return;
    }
    wait_out(s);
#endif
}

/* reductions on whole doubles where the size allows, bytes otherwise */
static MPI_Datatype red_type(long long bytes, int *count)
{
    if (bytes % 8 == 0) {
        *count = (int)(bytes / 8);
        return MPI_DOUBLE;
    }
    *count = (int)bytes;
    return MPI_UNSIGNED_CHAR;
}

/* One function per action (the run column of action_table.h): the action's MPI call on
 * its communicator (comm, c: its members, NULL for the world), rq its request when the
 * action posts one. */
#define RUN_ARGS replay_t *R, const action_t *a, MPI_Comm comm, const comm_t *c, MPI_Request *rq
#define UNUSED_RUN_ARGS (void)R, (void)a, (void)comm, (void)c, (void)rq

static void run_none(RUN_ARGS) { UNUSED_RUN_ARGS; }
static void run_compute(RUN_ARGS) { UNUSED_RUN_ARGS; compute(R, a->seconds); }

static void run_send(RUN_ARGS)
{
    int p = peer_in(R, c, a->peer), t = tag_of(a->tag), b = (int)a->bytes;
    a->nb ? MPI_Isend(R->sbuf, b, MPI_BYTE, p, t, comm, rq) : MPI_Send(R->sbuf, b, MPI_BYTE, p, t, comm);
}

static void run_recv(RUN_ARGS) /* SRC -2: MPI_ANY_SOURCE, TAG -2: MPI_ANY_TAG */
{
    int p = peer_in(R, c, a->peer), t = tag_of(a->tag), b = (int)a->bytes;
    if (p == MPI_ANY_SOURCE || t == MPI_ANY_TAG || a->tag == -4 /* counting */)
        b = R->bufsz; /* a wildcard (or a counting tag, one tag for every message of its
                         channel) may match another message than the base's, of another
                         size (its time is the message's, not the buffer's) */
    a->nb ? MPI_Irecv(R->rbuf, b, MPI_BYTE, p, t, comm, rq)
          : MPI_Recv(R->rbuf, b, MPI_BYTE, p, t, comm, MPI_STATUS_IGNORE);
}

static void run_probe(RUN_ARGS)
{
    UNUSED_RUN_ARGS;
#ifdef PAS2P_SIMGRID
    /* SimGrid's MPI_Probe polls for ever when no message comes (each poll moves the clock:
     * never a deadlock it sees): after PAS2P_REPLAY_TIMEOUT seconds of simulated time in
     * one probe (pas2p simulate sets it: a minute plus 100 x the traced run), stuck */
    int src = peer_in(R, c, a->peer), tag = tag_of(a->tag), flag = 0;
    double t0 = simgrid_get_clock();
    while (!flag) {
        MPI_Iprobe(src, tag, comm, &flag, MPI_STATUS_IGNORE);
        if (!flag && R->probe_limit_s > 0 && simgrid_get_clock() - t0 > R->probe_limit_s)
            die(R, "a probe (source %d, tag %d) waited %.0f simulated seconds for a message "
                "no rank sends: phase %u cannot be replayed in this order "
                "(PAS2P_REPLAY_TIMEOUT=%g)", a->peer, a->tag, simgrid_get_clock() - t0,
                R->phase, R->probe_limit_s);
    }
#else
    MPI_Probe(peer_in(R, c, a->peer), tag_of(a->tag), comm, MPI_STATUS_IGNORE);
#endif
}

static void run_sendrecv(RUN_ARGS)
{
    UNUSED_RUN_ARGS;
    int src = peer_in(R, c, a->peer2), tag = tag_of(a->tag2);
    int rb = src == MPI_ANY_SOURCE || tag == MPI_ANY_TAG || a->tag2 == -4
                 ? R->bufsz : (int)a->rbytes; /* (run_recv) */
    MPI_Sendrecv(R->sbuf, (int)a->bytes, MPI_BYTE, peer_in(R, c, a->peer), tag_of(a->tag), R->rbuf,
                 rb, MPI_BYTE, src, tag, comm, MPI_STATUS_IGNORE);
}

static void run_wait(RUN_ARGS) { UNUSED_RUN_ARGS; complete_at(R, (size_t)a->pos, (size_t)a->bytes); }
static void run_waitall(RUN_ARGS) { UNUSED_RUN_ARGS; complete(R, R->nreq); }

/* the pending requests that are done are completed (MPI_Testsome, not MPI_Testall's all or
 * none: a test that found its request done in the run need not find it done here, and
 * ABySS's one pending receive per message then became thousands, each later test over them
 * all); they keep their places among the oldest for a later `wait N` */
static void run_test(RUN_ARGS)
{
    UNUSED_RUN_ARGS;
    sweep(R);
}

static void run_barrier(RUN_ARGS) { UNUSED_RUN_ARGS; a->nb ? MPI_Ibarrier(comm, rq) : MPI_Barrier(comm); }

static void run_bcast(RUN_ARGS)
{
    int b = (int)a->bytes, root = peer_in(R, c, a->peer);
    a->nb ? MPI_Ibcast(R->sbuf, b, MPI_BYTE, root, comm, rq) : MPI_Bcast(R->sbuf, b, MPI_BYTE, root, comm);
}

static void run_reduce(RUN_ARGS)
{
    int n, root = peer_in(R, c, a->peer);
    MPI_Datatype t = red_type(a->bytes, &n);
    a->nb ? MPI_Ireduce(R->sbuf, R->rbuf, n, t, MPI_SUM, root, comm, rq)
          : MPI_Reduce(R->sbuf, R->rbuf, n, t, MPI_SUM, root, comm);
}

static void run_allreduce(RUN_ARGS)
{
    UNUSED_RUN_ARGS;
    int n;
    MPI_Datatype t = red_type(a->bytes, &n);
    a->nb ? MPI_Iallreduce(R->sbuf, R->rbuf, n, t, MPI_SUM, comm, rq)
          : MPI_Allreduce(R->sbuf, R->rbuf, n, t, MPI_SUM, comm);
}

static void run_gather(RUN_ARGS)
{
    int b = (int)a->bytes, root = peer_in(R, c, a->peer);
    a->nb ? MPI_Igather(R->sbuf, b, MPI_BYTE, R->rbuf, b, MPI_BYTE, root, comm, rq)
          : MPI_Gather(R->sbuf, b, MPI_BYTE, R->rbuf, b, MPI_BYTE, root, comm);
}

static void run_scatter(RUN_ARGS)
{
    int b = (int)a->bytes, root = peer_in(R, c, a->peer);
    a->nb ? MPI_Iscatter(R->sbuf, b, MPI_BYTE, R->rbuf, b, MPI_BYTE, root, comm, rq)
          : MPI_Scatter(R->sbuf, b, MPI_BYTE, R->rbuf, b, MPI_BYTE, root, comm);
}

static void run_allgather(RUN_ARGS)
{
    UNUSED_RUN_ARGS;
    int b = (int)a->bytes;
    a->nb ? MPI_Iallgather(R->sbuf, b, MPI_BYTE, R->rbuf, b, MPI_BYTE, comm, rq)
          : MPI_Allgather(R->sbuf, b, MPI_BYTE, R->rbuf, b, MPI_BYTE, comm);
}

static void run_alltoall(RUN_ARGS)
{
    UNUSED_RUN_ARGS;
    int b = (int)a->bytes;
    a->nb ? MPI_Ialltoall(R->sbuf, b, MPI_BYTE, R->rbuf, b, MPI_BYTE, comm, rq)
          : MPI_Alltoall(R->sbuf, b, MPI_BYTE, R->rbuf, b, MPI_BYTE, comm);
}

static void run_reduce_scatter(RUN_ARGS)
{
    UNUSED_RUN_ARGS;
    int n;
    MPI_Datatype t = red_type(a->bytes, &n);
    a->nb ? MPI_Ireduce_scatter_block(R->sbuf, R->rbuf, n, t, MPI_SUM, comm, rq)
          : MPI_Reduce_scatter_block(R->sbuf, R->rbuf, n, t, MPI_SUM, comm);
}

static void run_scan(RUN_ARGS)
{
    UNUSED_RUN_ARGS;
    int n;
    MPI_Datatype t = red_type(a->bytes, &n);
    a->nb ? MPI_Iscan(R->sbuf, R->rbuf, n, t, MPI_SUM, comm, rq)
          : MPI_Scan(R->sbuf, R->rbuf, n, t, MPI_SUM, comm);
}

static void run_exscan(RUN_ARGS)
{
    UNUSED_RUN_ARGS;
    int n;
    MPI_Datatype t = red_type(a->bytes, &n);
    a->nb ? MPI_Iexscan(R->sbuf, R->rbuf, n, t, MPI_SUM, comm, rq)
          : MPI_Exscan(R->sbuf, R->rbuf, n, t, MPI_SUM, comm);
}

/* a v-collective's COUNTS must have one entry per member of its communicator (a rooted
 * one's at its root only: root is its rank in comm, -1 if it has none) */
static void check_counts(replay_t *R, const action_t *a, MPI_Comm comm, int root)
{
    int size, me;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &me);
    if (root >= 0 && me != root)
        return;
    if (a->n != size)
        die(R, "a '%s' action has %d counts for a communicator of %d", pas2p_action_rows[a->act].name,
            a->n, size);
}

static void run_gatherv(RUN_ARGS) /* counts: what the root receives from each */
{
    int root = peer_in(R, c, a->peer), b = (int)a->bytes;
    check_counts(R, a, comm, root);
    int *cnt = a->n ? a->v : NULL, *dsp = a->n ? a->v + a->n : NULL;
    a->nb ? MPI_Igatherv(R->sbuf, b, MPI_BYTE, R->rbuf, cnt, dsp, MPI_BYTE, root, comm, rq)
          : MPI_Gatherv(R->sbuf, b, MPI_BYTE, R->rbuf, cnt, dsp, MPI_BYTE, root, comm);
}

static void run_scatterv(RUN_ARGS) /* counts: what the root sends to each */
{
    int root = peer_in(R, c, a->peer), b = (int)a->bytes;
    check_counts(R, a, comm, root);
    int *cnt = a->n ? a->v : NULL, *dsp = a->n ? a->v + a->n : NULL;
    a->nb ? MPI_Iscatterv(R->sbuf, cnt, dsp, MPI_BYTE, R->rbuf, b, MPI_BYTE, root, comm, rq)
          : MPI_Scatterv(R->sbuf, cnt, dsp, MPI_BYTE, R->rbuf, b, MPI_BYTE, root, comm);
}

static void run_allgatherv(RUN_ARGS) /* counts: what each member contributes */
{
    UNUSED_RUN_ARGS;
    check_counts(R, a, comm, -1);
    int b = (int)a->bytes;
    a->nb ? MPI_Iallgatherv(R->sbuf, b, MPI_BYTE, R->rbuf, a->v, a->v + a->n, MPI_BYTE, comm, rq)
          : MPI_Allgatherv(R->sbuf, b, MPI_BYTE, R->rbuf, a->v, a->v + a->n, MPI_BYTE, comm);
}

static void run_alltoallv(RUN_ARGS) /* counts: sent to each, received from each */
{
    UNUSED_RUN_ARGS;
    check_counts(R, a, comm, -1);
    int n = a->n, *sc = a->v, *sd = a->v + n, *rc = a->v + 2 * n, *rd = a->v + 3 * n;
    a->nb ? MPI_Ialltoallv(R->sbuf, sc, sd, MPI_BYTE, R->rbuf, rc, rd, MPI_BYTE, comm, rq)
          : MPI_Alltoallv(R->sbuf, sc, sd, MPI_BYTE, R->rbuf, rc, rd, MPI_BYTE, comm);
}

static void run_reduce_scatterv(RUN_ARGS) /* counts: what each member receives */
{
    UNUSED_RUN_ARGS;
    check_counts(R, a, comm, -1);
    MPI_Datatype t = a->dbl ? MPI_DOUBLE : MPI_UNSIGNED_CHAR;
    a->nb ? MPI_Ireduce_scatter(R->sbuf, R->rbuf, a->v, t, MPI_SUM, comm, rq)
          : MPI_Reduce_scatter(R->sbuf, R->rbuf, a->v, t, MPI_SUM, comm);
}

typedef void (*run_fn)(RUN_ARGS);
static const run_fn runs[PAS2P_NACTIONS] = {
#define RUN_(ID, name, f, nb, b, calls, run, ti) run,
    PAS2P_ACTIONS(RUN_)
#undef RUN_
};

static void run(replay_t *R, const action_t *a)
{
    const comm_t *c = NULL;
    MPI_Comm comm = MPI_COMM_WORLD;
    enum pas2p_fields f = pas2p_action_rows[a->act].fields;
    if (f != PAS2P_AF_SECONDS && f != PAS2P_AF_COUNT && f != PAS2P_AF_NONE && f != PAS2P_AF_PHASE)
        comm = comm_of(R, a->comm, &c);
    if (f != PAS2P_AF_SECONDS)
        R->events++;
    runs[a->act](R, a, comm, c, a->nb ? new_req(R) : NULL);
}

/* buffers large enough for every action of this rank */
static void buffers(replay_t *R)
{
    long long mx = 8;
    for (size_t i = 0; i < R->na; i++) {
        const action_t *a = &R->a[i];
        long long m = a->bytes > a->rbytes ? a->bytes : a->rbytes;
        enum pas2p_fields f = pas2p_action_rows[a->act].fields;
        if (f == PAS2P_AF_ROOTED || f == PAS2P_AF_BYTES) /* per member: gather, alltoall, ... */
            m *= R->np;
        if (a->sum[0] > m)
            m = a->sum[0];
        if (a->sum[1] > m)
            m = a->sum[1];
        if (f != PAS2P_AF_COUNT && f != PAS2P_AF_PHASE && m > mx)
            mx = m;
    }
    if (mx > (long long)1 << 31)
        die(R, "a message larger than 2 GiB (%lld bytes)", mx);
    R->sbuf = calloc(1, (size_t)mx);
    R->rbuf = calloc(1, (size_t)mx);
    R->bufsz = (int)mx;
    if (!R->sbuf || !R->rbuf)
        die(R, "out of memory for the message buffers (%lld bytes)", mx);
}

#ifdef PAS2P_SIMGRID
/* A timed repetition in SimGrid is the time of the whole slice across the ranks: every
 * rank starts it at the same simulated instant and it ends when its last rank is done (the
 * same time on every rank).  A rank's own time from a barrier is not its share of the run
 * when the ranks do different things in the slice: in a pipeline stage where one rank only
 * sends, that rank is done in microseconds while the slice lasts a chain of messages and
 * computations (wavefront at np 4: -43 % against the full trace, from the representative's
 * own times).  And a barrier's exits are skewed by a latency or more across the ranks
 * (md at np 8 on GbE: +100 us on rank 0 per repetition), which the slice's time must not
 * count, nor credit to a rank that left early.  Simulated time is one clock for all ranks,
 * so: two allreduces (the latest clock, then the latest clock after it and the longest
 * allreduce), and every rank sleeps until the same instant past both. */
static double start_together(void)
{
    double a = simgrid_get_clock(), v[2] = {a, 0}, m[2];
    MPI_Allreduce(v, m, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double b = simgrid_get_clock();
    v[0] = b;
    v[1] = b - a;
    MPI_Allreduce(v, m, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    /* this rank is now at most one more allreduce (about m[1]) past m[0] */
    sg_actor_sleep_until(m[0] + 4 * m[1] + 1e-6);
    return simgrid_get_clock();
}

/* the slice's end: the latest rank's t1; its start: the latest t0 (all equal unless a rank
 * came late to start_together) */
static double slice_time(double t0, double t1)
{
    double v[2] = {t0, t1}, m[2];
    MPI_Allreduce(v, m, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m[1] - m[0];
}
#endif

#ifndef PAS2P_SIMGRID
/* The watchdog (real MPI): a replay that has not ended PAS2P_REPLAY_TIMEOUT seconds after
 * it started (pas2p replay sets it: a minute plus ten times the traced run) is stuck --
 * a phase whose waits, replayed as "the N oldest pending requests", wait for a message
 * that only comes later (a signature where tests complete what the waits do not say):
 * the first rank to see it writes OUT_DIR/replay.error, which pas2p reports, and ends the
 * job.  SimGrid says the same as a deadlock. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done;
    double timeout_s;
    unsigned phase;          /* the phase block being replayed (atomic) */
    int rank;
    char path[PATH_MAX];
} watchdog_t;

static void *watchdog_run(void *arg)
{
    watchdog_t *w = arg;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += (time_t)w->timeout_s;
    pthread_mutex_lock(&w->mu);
    int rc = 0;
    while (!w->done && rc == 0)
        rc = pthread_cond_timedwait(&w->cv, &w->mu, &until);
    int fire = !w->done;
    pthread_mutex_unlock(&w->mu);
    if (!fire)
        return NULL;
    int fd = open(w->path, O_WRONLY | O_CREAT | O_EXCL, 0644); /* (the first rank's) */
    if (fd >= 0) {
        char line[512];
        int n = snprintf(line, sizeof line,
                         "the replay did not end within %.0f s: rank %d was still in phase %u, "
                         "whose completions cannot be replayed in the run's order (simulate "
                         "reports it as a deadlock)\n",
                         w->timeout_s, w->rank, __atomic_load_n(&w->phase, __ATOMIC_RELAXED));
        if (n > 0 && write(fd, line, (size_t)n) < 0)
            n = 0;
        close(fd);
    }
    _exit(3);
}
#endif

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    replay_t R = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &R.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &R.np);
#ifdef PAS2P_SIMGRID
    static const char use[] = "usage: " PROG " ACTIONS_DIR OUT_DIR REPS FLOPS_PER_S|kernel (run by pas2p simulate)";
#else
    static const char use[] = "usage: " PROG " ACTIONS_DIR OUT_DIR REPS kernel|sleep (run by pas2p replay)";
#endif
    int reps = argc == 5 ? atoi(argv[3]) : 0;
#ifdef PAS2P_SIMGRID
    int kernel_speed = argc == 5 && !strcmp(argv[4], "kernel");
    R.flops_per_s = argc == 5 && !kernel_speed ? atof(argv[4]) : 0;
    int ok = reps >= 1 && (kernel_speed || R.flops_per_s > 0);
#else
    R.kernel = argc == 5 && !strcmp(argv[4], "kernel");
    int ok = reps >= 1 && (R.kernel || !strcmp(argv[4], "sleep"));
#endif
    if (!ok) {
        if (R.rank == 0)
            fprintf(stderr, "%s\n", use);
        MPI_Finalize();
        return 2;
    }
    if (check_np(&R, argv[1], argv[2])) {
        MPI_Finalize();
        return 0;
    }
    parse(&R, argv[1]);
#ifdef PAS2P_SIMGRID
    if (kernel_speed) { /* this rank's base speed: its kernel calibration on the base */
        if (!(R.kernel_rate > 0))
            die(&R, "%s: no kernel_rate line: the base run has no kernel calibration (give "
                "--base-speed a speed)", argv[1]);
        R.flops_per_s = R.kernel_rate * PAS2P_KERNEL_FLOPS_PER_BLOCK;
    } else {
        R.blocked = 0; /* a base speed given: each computation's seconds are all work */
    }
#else
    if (!R.kernel)
        R.blocked = 0; /* sleep: the recorded seconds, waited out whole */
    if (R.kernel && !(R.kernel_rate > 0))
        die(&R, "%s: no kernel_rate line: the base run has no kernel calibration (replay with "
            "sleep)", argv[1]);
#endif
    make_comms(&R);
    buffers(&R);
#ifdef PAS2P_SIMGRID
    const char *pl = getenv("PAS2P_REPLAY_TIMEOUT");
    R.probe_limit_s = pl ? atof(pl) : 0;
#else
    watchdog_t wd = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER,
                     .rank = R.rank};
    const char *to = getenv("PAS2P_REPLAY_TIMEOUT");
    wd.timeout_s = to ? atof(to) : 0;
    const char *hc = getenv("PAS2P_REPLAY_TEST_HICCUP");
    if (hc && sscanf(hc, "%u:%lf", &R.hiccup_phase, &R.hiccup_s) != 2)
        die(&R, "PAS2P_REPLAY_TEST_HICCUP=%s: expected PHASE:SECONDS", hc);
    snprintf(wd.path, sizeof wd.path, "%.4000s/replay.error", argv[2]);
    pthread_t wdt;
    int wd_on = wd.timeout_s > 0 && !pthread_create(&wdt, NULL, watchdog_run, &wd);
#endif

    /* per phase block: its id and the measured repetitions */
    typedef struct {
        unsigned id;
        int n;
        int alias, nalias;   /* the ids reported (R.alias[alias...]), or none: id */
        double t[16];
    } ptime_t;
    ptime_t *pt = NULL;
    size_t npt = 0;
    if (reps > 16)
        reps = 16;
    MPI_Barrier(MPI_COMM_WORLD);
    double t_start = MPI_Wtime();
    for (size_t i = 0; i < R.na; i++) {
        if (R.a[i].act == PAS2P_ACT_END)
            die(&R, "'end' without a phase (action %zu)", i);
        if (R.a[i].act != PAS2P_ACT_PHASE) {
            run(&R, &R.a[i]);
            continue;
        }
        size_t j = i + 1;
        while (j < R.na && R.a[j].act != PAS2P_ACT_END && R.a[j].act != PAS2P_ACT_PHASE)
            j++;
        if (j == R.na || R.a[j].act != PAS2P_ACT_END)
            die(&R, "phase %u has no 'end'", R.a[i].comm);
        pt = xrealloc(&R, pt, (npt + 1) * sizeof *pt);
        ptime_t *p = &pt[npt++];
        p->id = R.a[i].comm;
        R.phase = p->id;
#ifndef PAS2P_SIMGRID
        __atomic_store_n(&wd.phase, p->id, __ATOMIC_RELAXED);
#endif
        p->n = 0;
        p->alias = R.a[i].tag;
        p->nalias = R.a[i].tag2;
        long long burst = R.a[i].bytes;
        int nrep = R.a[i].peer ? 1 : reps; /* `once`: the single, cold, occurrence */
#ifndef PAS2P_SIMGRID
        if (!R.a[i].peer && R.a[i].n > nrep) /* `reps N`: a short repetition (real MPI
                                                    only: a simulation has no hiccups) */
            nrep = R.a[i].n;
#endif
#ifndef PAS2P_SIMGRID
        /* a phase whose timed values are not steady (pas2p_times_unsteady, as predict's stop
         * asks) is replayed again, every rank deciding together, up to twice the planned
         * timed values and one: a cg iteration replayed twice, 0.021 and 0.044 s, was
         * predicted at 1.5x its run (a simulation has no hiccups) */
        int cap = nrep > 1 ? 1 + (2 * (nrep - 1) + 1 < 16 ? 2 * (nrep - 1) + 1 : 16) : nrep;
        int extended = 0;
#endif
        for (int r = 0; r < nrep; r++) {
            /* the warm-up: the phase's messages and collectives, without its computation
             * (what it warms is the network: connections, queues, buffers; the kernel and
             * the clock spin need no warming), at a fraction of a repetition's cost */
            int warm = nrep > 1 && r == 0;
#ifdef PAS2P_SIMGRID
            double t0 = start_together();
#else
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
#endif
            for (long long b = 0; b < burst; b++) {
                for (size_t k = i + 1; k < j; k++)
                    if (!warm || R.a[k].act != PAS2P_ACT_COMPUTE)
                        run(&R, &R.a[k]);
                complete(&R, R.nreq);
            }
#ifdef PAS2P_SIMGRID
            double dt = slice_time(t0, simgrid_get_clock());
#else
            if (R.hiccup_s > 0 && R.rank == 0 && p->id == R.hiccup_phase && r == 1) {
                double until = MPI_Wtime() + R.hiccup_s;
                while (MPI_Wtime() < until)
                    ;
            }
            double dt = MPI_Wtime() - t0;
#endif
            if (!warm && j > i + 1) /* an empty block: this rank lacks the phase */
                p->t[p->n++] = dt / (double)burst / (double)R.a[i].rbytes; /* (per occurrence) */
#ifndef PAS2P_SIMGRID
            if (r + 1 == nrep && nrep < cap) {
                int want = pas2p_times_unsteady(p->t, (unsigned)p->n, extended);
                MPI_Allreduce(MPI_IN_PLACE, &want, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
                if (want) {
                    nrep++;
                    extended = 1;
                }
            }
#endif
        }
        i = j;
    }
    complete(&R, R.nreq);
    MPI_Barrier(MPI_COMM_WORLD);
    double set = MPI_Wtime() - t_start;
#ifndef PAS2P_SIMGRID
    if (wd_on) {
        pthread_mutex_lock(&wd.mu);
        wd.done = 1;
        pthread_cond_signal(&wd.cv);
        pthread_mutex_unlock(&wd.mu);
        pthread_join(wdt, NULL);
    }
#endif

    pas2p_times_writer_t w;
    if (pas2p_times_begin(&w, argv[2], R.rank, R.np, PAS2P_TIMES_COMPLETED,
                          (unsigned long long)R.events, set, 0, NULL, NULL))
        die(&R, "%s: cannot write", w.tmp);
    for (size_t i = 0; i < npt; i++) {
        if (!pt[i].n)
            continue;
        for (int k = 0; k < (pt[i].nalias ? pt[i].nalias : 1); k++) {
            pas2p_times_phase(&w, pt[i].nalias ? R.alias[pt[i].alias + k] : pt[i].id);
            for (int r = 0; r < pt[i].n; r++)
                pas2p_times_value(&w, pt[i].t[r]);
        }
    }
    if (pas2p_times_end(&w))
        die(&R, "%s: cannot write", w.path);
    for (size_t i = 0; i < R.ncomms; i++) {
        if (R.comms[i].comm != MPI_COMM_NULL)
            MPI_Comm_free(&R.comms[i].comm);
        free(R.comms[i].members);
    }
    free(R.comms);
    for (size_t i = 0; i < R.na; i++)
        free(R.a[i].v);
    free(R.a);
    free(R.req);
    free(R.idx);
    free(R.sbuf);
    free(R.rbuf);
    free(pt);
    free(R.alias);
    MPI_Finalize();
    return 0;
}
