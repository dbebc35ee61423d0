/* Signature mode (`pas2p predict`): the application runs on the target under its
 * signature.  This is a tracer sink (tracer/pas2p_sink.h) built as its own library,
 * libpas2p-sigrun.so, which libpas2p loads at MPI_Init when PAS2P_SIGNATURE is set: the
 * signature module and libxml2 come with it, never into a traced run.  Per rank:
 *
 *  - every intercepted call is one event, numbered as the tracer numbers them (a global
 *    signature: as pas2p_number_event numbers them, failed polls and the continuations of
 *    a Waitsome/Testsome run left out), so the signature's occurrence ordinals
 *    (<occurrence start end>) locate the phases; in an
 *    anchored signature (a farm: signature/FORMAT.md), by anchor positions instead (the
 *    all-rank blocking collectives so far, the calls since the last), and a `variable`
 *    phase's calls are checked as members of its skeleton, in any order and number;
 *  - events inside the recorded first occurrences of every phase are checked against the
 *    phase's skeleton (call, peers, tag, communicator, bytes within the size tolerance;
 *    not the bytes of a completion call, which depend on timing; in a relevant phase,
 *    bytes within 4x of a range the base saw vary are a departure, counted and said, not
 *    a divergence: check_event):
 *    the first mismatch is a divergence, reported with where it happened, and the run is
 *    aborted (never a hang, never a PET from another program);
 *  - the relevant phases' occurrences after the first (warm-up) are timed: end of the event
 *    before the occurrence -> end of its last event, as the analyzer times them; not a
 *    phase that occurs once at MPI_Finalize (unless PAS2P_MEASURE_END=1), nor a minor
 *    variant of another phase (same calls and sizes, fewer occurrences), nor a late phase
 *    (first seen in the second half of the rank's events, while such phases carry < 25 %
 *    of its time together: a short loop in the wind-down): they are estimated by the PET
 *    from the rank's ratio rather than delay the stop (a late phase's occurrences that
 *    complete before the stop are timed and used);
 *  - at every blocking collective on MPI_COMM_WORLD, or on a communicator of all the ranks
 *    (a Cartesian one, a duplicate: the signature lists them), that no rank leaves before
 *    all entered it (stop_point: a barrier, an allreduce...; not a rooted one), the ranks
 *    agree (one extra allreduce on a private duplicate of MPI_COMM_WORLD, its time excluded
 *    from the measurements) whether every rank is done and nothing is in flight: messages
 *    sent == received over all ranks and no request active anywhere.  Then each rank
 *    writes its times, finalises MPI and exits 0 there: the early stop.  Without such a
 *    point, the guaranteed stop below ends the run once every rank's times are safe.
 *
 * Results: PAS2P_PREDICT_DIR/rank-NNNNN.times (tracer/FORMAT.md, "signature-mode times"),
 * read by `pas2p predict`.
 */
#include <errno.h>
#include <fcntl.h>
#include <fenv.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mpi.h>

#include "pas2p_signature.h"
#include "pas2p_sink.h"
#include "pas2p_times.h"

/* the share of a rank's calls the steady state may be awaited to (steady()), twice that
 * while a phase's ratio is suspect: the budget --rare-after had before its default went to
 * 0.01 (validation/bench/results/predict.md) */
#define PAS2P_STEADY_BUDGET 0.03

typedef struct {
    uint64_t start, end;     /* ordinals [start, end); anchored: anchor positions */
    uint64_t seen;           /* its events seen so far */
    uint32_t phase;          /* index in the rank's table */
    int measured;            /* one of the occurrences the stop waits for */
    int timed;               /* 1: measured, or a later one timed if it completes before the
                                stop; 2: an occurrence of a minor variant, timed the same way
                                (a `variant` line: for the estimator study, not the PET) */
    double t0, t1;           /* boundary values (ns, excluded time taken out); t1 < 0: open */
    uint64_t oend;           /* its end as an ordinal (the stop point's unit) */
    int steady;              /* awaited because the phase's first values disagreed */
    uint32_t occ;            /* which occurrence of its phase, from 0 */
} interval_t;

typedef struct {
    const pas2p_sink_host_t *host; /* libpas2p: rank, np, clock, request counts */
    pas2p_signature_t sig;
    const pas2p_sig_rank_t *me;
    interval_t *iv;
    uint32_t niv, cur;
    uint32_t nmeasured, nclosed;
    uint64_t stop_at;        /* the rare phases' stop point (ordinal, --rare-after) */
    uint64_t steady_at;      /* the steady state's (PAS2P_STEADY_BUDGET of the calls, never
                                before stop_at): no later occurrence is awaited to make a
                                phase's time steady (but up to twice it while suspect) */
    uint32_t steady_cap;     /* values a phase whose first ones disagree is timed up to */
    double tol;
    double prev_v;           /* boundary value after the previous event */
    uint64_t excl_ns;        /* time spent in the agreement allreduces */
    MPI_Comm comm;           /* duplicate of MPI_COMM_WORLD for the agreement */
    /* the guaranteed stop, on a second duplicate (its collectives are issued at each rank's
     * own moment, so they must not share a communicator with the agreement's) */
    MPI_Comm nb;
    int nb_state;            /* NB_* below */
    MPI_Request nb_req[2];
    int nb_len, *nb_lens, *nb_displs;
    char *nb_buf, *nb_all;   /* this rank's times; on rank 0, every rank's */
    uint64_t checks;
    uint32_t last;           /* the interval whose end completed the measurements, or niv */
    uint64_t checks_done, checks_inflight; /* checks after that; with messages in flight */
    uint64_t nevents;        /* events seen (in the signature's ordinals) */
    uint64_t lo;             /* global signatures: numbered calls so far (pas2p_number_event) */
    unsigned last_call;      /* pas2p_number_event's state */
    uint32_t run_close;      /* an interval whose last call is a Waitsome/Testsome whose run
                                may go on: closed at the next numbered call (UINT32_MAX none) */
    uint64_t apos;           /* anchored signatures: the next call's anchor position (all-rank
                                blocking collectives so far << 32 | calls since the last) */
    uint64_t msg_sent, msg_recvd; /* point-to-point messages counted from events (the host
                                     counts those its request bookkeeping sees) */
    int predict_reports;     /* PAS2P_PREDICT_REPORTS=1: `pas2p predict` says divergences */
    uint64_t departed;       /* occurrences of phases that are not relevant (or occur
                                once) whose calls departed from their skeleton, tolerated
                                (tolerate(), shuffled(), check_event) */
    const interval_t *departed_last; /* the last of them (counted once) */
    char departed_why[600];  /* the first departure, said as a divergence would be */
    int root_moved_first;    /* that first departure was a rooted collective's root moved */
    int frozen;              /* the run left the signature after this rank had measured all
                                it must: its calls are no longer followed (departs_when_done) */
    double end_share;        /* the end's phase's share of this rank's time, when it holds so
                                much that it is timed, not estimated (0: it is not) */
    int to_end;              /* PAS2P_TO_END=1 (predict --to-end): the times are gathered when
                                the run could stop, and it goes on to MPI_Finalize, whose
                                elapsed time rank 0 writes beside them (write_to_end) */
    uint64_t calls;          /* to_end: the calls made so far, numbered as the signature's */
    uint64_t me_end;         /* the traced run's: its last ordinal (sig_start) */
    /* each phase's distinct call shapes (phase_shapes), built the first time a call is
     * looked for anywhere in its skeleton: NULL until then */
    pas2p_sig_event_t **shapes;
    uint32_t *nshapes;
    char dir[4096];
} sigrun_t;

enum { NB_IDLE, NB_GATHERING, NB_GATHERED };

static int cmp_iv(const void *a, const void *b)
{
    const interval_t *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* this rank's times (pas2p_times.h; tracer/FORMAT.md, "Signature-mode times") as text,
 * malloc'd (NULL: out of memory); status: PAS2P_TIMES_STOPPED, _COMPLETED or _DIVERGED */
static char *format_times(const sigrun_t *s, int status, const char *why, double set_s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    pas2p_times_writer_t w;
    unsigned long long done_at = s->last < s->niv ? (unsigned long long)s->iv[s->last].end : 0;
    pas2p_times_format(&w, f, s->host->rank, s->host->np, status, (unsigned long long)s->nevents,
                       set_s, (unsigned long long)s->checks, why, s->last < s->niv ? &done_at : NULL);
    pas2p_times_departed(&w, (unsigned long long)s->departed, s->departed_why);
    for (int kind = 1; s->me && kind <= 2; kind++)
        for (uint32_t k = 0; k < s->me->nphases; k++) {
            int any = 0, consecutive = 1;
            uint32_t first = 0, next = 0;
            for (uint32_t i = 0; i < s->niv; i++) {
                const interval_t *v = &s->iv[i];
                if (v->phase != k || v->timed != kind || v->t1 < 0)
                    continue;
                if (!any) {
                    (kind == 1 ? pas2p_times_phase : pas2p_times_variant)(&w, s->me->phases[k].id);
                    first = next = v->occ;
                }
                consecutive &= v->occ == next++;
                pas2p_times_value(&w, (v->t1 - v->t0) * 1e-9);
                any = 1;
            }
            /* which occurrences they are, when they follow each other (the PET compares each
             * with the same occurrence of the base run) */
            if (any && kind == 1 && consecutive)
                pas2p_times_first(&w, s->me->phases[k].id, first + 1);
        }
    pas2p_times_finish(&w);
    if (fclose(f)) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* DIR/rank-NNNNN.times of `rank`: text[0..len), written whole or not at all */
static void write_times_file(const sigrun_t *s, int rank, const char *text, size_t len)
{
    char path[4400];
    if (pas2p_times_write_text(s->dir, rank, text, len, path, sizeof path))
        fprintf(stderr, "pas2p: rank %d: cannot write %s: %s\n", s->host->rank, path, strerror(errno));
}

/* this rank writes its own times file (a divergence: no other rank can be waited for) */
static void write_times(sigrun_t *s, int status, const char *why, double set_s)
{
    char *t = format_times(s, status, why, set_s);
    if (!t) {
        fprintf(stderr, "pas2p: rank %d: out of memory\n", s->host->rank);
        return;
    }
    write_times_file(s, s->host->rank, t, strlen(t));
    free(t);
}

/* seconds since MPI_Init returned */
static double now_set_s(const sigrun_t *s)
{
    return (double)(s->host->now_ns() - s->host->init_ns()) * 1e-9;
}

/* A rank whose every measured occurrence is closed has its times (sent to rank 0, or
 * written at the stop): where its calls go after that cannot change them.  HyPhy catches
 * the SIGTERM with which mpirun ends the other ranks at the guaranteed stop and calls
 * MPI_Abort, a call its signature does not make: every predict run failed as diverged.
 * Then the rank stops following the signature (no more checks, no more timing: frozen),
 * says it as a departure, and the run goes on to its stop.  Another np, program or input
 * is refused before (the launch checks) or departs while the rank still measures.
 * Returns 1 when the call departed so (the caller returns), 0 when it is a divergence. */
static int departs_when_done(sigrun_t *s, const char *why)
{
    if (!s->iv || !s->nmeasured || s->nclosed != s->nmeasured)
        return 0;
    if (!s->frozen) {
        if (!s->departed)
            snprintf(s->departed_why, sizeof s->departed_why, "departed after its measurements: %.540s",
                     strncmp(why, "diverged ", 9) ? why : why + 9);
        s->departed++;
        s->frozen = 1;
    }
    return 1;
}

/* a divergence (or a signature this run cannot follow): say where, and end the whole run */
static void diverge(sigrun_t *s, const char *why)
{
    /* tolerated departures before it may be where the run left the signature (a phase
     * that made its skeleton's calls in another number shifts every ordinal after it):
     * the first one is said too */
    char all[1280];
    if (s->departed) {
        /* a root that moved first and calls that differ after it: the program placed its
         * data otherwise in this run (DOLFIN partitions its mesh anew each run: a broadcast's
         * root, then a scatter's sizes, then its calls), which no locating follows */
        snprintf(all, sizeof all, "%.*s (after %llu tolerated departure(s); the first: %.300s)%s",
                 s->root_moved_first ? 450 : 600, why, (unsigned long long)s->departed,
                 s->departed_why,
                 s->root_moved_first ? "; a collective's root moved first: this program places "
                                       "its data at run time, which predict cannot follow "
                                       "(replay and simulate need no application)"
                                     : "");
        why = all;
    }
    if (!s->host->quiet && !s->predict_reports)
        fprintf(stderr, "pas2p: rank %d: %s\n", s->host->rank, why);
    write_times(s, PAS2P_TIMES_DIVERGED, why, now_set_s(s));
    PMPI_Abort(MPI_COMM_WORLD, PAS2P_DIVERGED_CODE);
    _exit(PAS2P_DIVERGED_CODE);
}

/* the command line this process runs, "argv0 arg1 ..." (from /proc/self/cmdline) */
static void own_args(char *out, size_t len)
{
    out[0] = 0;
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t n = read(fd, out, len - 1);
    close(fd);
    if (n <= 0)
        return;
    out[n] = 0;
    for (ssize_t i = 0; i < n - 1; i++)
        if (!out[i])
            out[i] = ' ';
}

static const char *base(const char *p, size_t n, size_t *blen)
{
    size_t i = n;
    while (i > 0 && p[i - 1] != '/')
        i--;
    *blen = n - i;
    return p + i;
}

/* 1 if the signature's launch command ends with this process's program (by file name) and
 * arguments: same program, same input */
static int args_match(const char *sig_cmd, const char *mine)
{
    size_t lm = strlen(mine), ls = strlen(sig_cmd);
    const char *sp = strchr(mine, ' ');
    size_t l0 = sp ? (size_t)(sp - mine) : lm; /* argv[0] */
    const char *rest = mine + l0;                /* " arg1 arg2", maybe empty */
    size_t lr = lm - l0;
    if (ls < lr || strcmp(sig_cmd + ls - lr, rest))
        return 0;
    size_t e = ls - lr, b = e; /* the signature's program token ends at e */
    while (b > 0 && sig_cmd[b - 1] != ' ')
        b--;
    size_t n1, n2;
    const char *b1 = base(sig_cmd + b, e - b, &n1), *b2 = base(mine, l0, &n2);
    return n1 == n2 && !memcmp(b1, b2, n1);
}

/* 1 when path names a script: a regular file that starts with "#!" (an argument that names
 * a FIFO or a device is not opened for reading: never blocks) */
static int is_script(const char *path, size_t n)
{
    char p[1024], head[2];
    if (n >= sizeof p)
        return 0;
    memcpy(p, path, n);
    p[n] = 0;
    struct stat st;
    if (stat(p, &st) || !S_ISREG(st.st_mode))
        return 0;
    int fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return 0;
    ssize_t got = read(fd, head, 2);
    close(fd);
    return got == 2 && head[0] == '#' && head[1] == '!';
}

/* this process's program and arguments as launched: from the script its command line names
 * after the interpreter, if there is one (a launch of `gpaw python h2o.py` runs
 * `/usr/bin/python3 /usr/bin/gpaw python h2o.py`: the kernel puts the "#!" line's
 * interpreter, and its argument if any, before the script's path), else all of it */
static const char *own_program(const char *mine)
{
    for (const char *w = strchr(mine, ' '); w; w = strchr(w + 1, ' ')) {
        const char *word = w + 1;
        size_t lw = strcspn(word, " ");
        if (lw && is_script(word, lw))
            return word;
    }
    return mine;
}

/* the signature's program and arguments: its launch command from the last word that names
 * this process's program (by file name) on, or all of it when none does -- what a refusal
 * quotes, so that it compares like with like */
static const char *sig_program(const char *sig_cmd, const char *mine)
{
    const char *sp = strchr(mine, ' ');
    size_t n2, l0 = sp ? (size_t)(sp - mine) : strlen(mine);
    const char *b2 = base(mine, l0, &n2), *found = NULL;
    for (const char *w = sig_cmd; *w;) {
        while (*w == ' ')
            w++;
        size_t lw = strcspn(w, " "), n1;
        const char *b1 = base(w, lw, &n1);
        if (lw && n1 == n2 && !memcmp(b1, b2, n1))
            found = w;
        w += lw;
    }
    return found ? found : sig_cmd;
}

/* 1 if the two command lines' programs have the same file name (arguments aside) */
static int same_program(const char *a, const char *b)
{
    size_t la = strcspn(a, " "), lb = strcspn(b, " "), na, nb;
    const char *ba = base(a, la, &na), *bb = base(b, lb, &nb);
    return na == nb && !memcmp(ba, bb, na);
}

/* 1 if this process's command line `mine` is the traced rank 0's (`theirs`, the
 * signature's program): the same program file name, the same arguments */
static int program_matches(const char *theirs, const char *mine)
{
    return same_program(theirs, mine) &&
           !strcmp(theirs + strcspn(theirs, " "), mine + strcspn(mine, " "));
}

/* this run's np and program and arguments against the signature's (its application
 * element): a divergence when they differ (predict --ignore-args: the arguments not).
 * The trace records rank 0's own program: another rank running another program (a
 * launcher that starts one per rank, MUSIC's `music ev.music`; an MPMD launch the command
 * does not spell) is not checked against it, while rank 0 always is */
static void check_launch(sigrun_t *s, int run_np, const char *command, const char *traced,
                         uint32_t np)
{
    char why[1200];
    if ((int)np != run_np) {
        snprintf(why, sizeof why, "the run has %d ranks, the signature %u: it predicts only "
                 "the run it was made from", run_np, np);
        diverge(s, why);
    }
    const char *check = getenv("PAS2P_ARGS_CHECK");
    if (!check || strcmp(check, "0")) {
        char mine[2048];
        own_args(mine, sizeof mine);
        const char *prog = own_program(mine);
        /* the traced rank 0's own command line (a wrapper script's exec: tree-puzzle's
         * `exec tree-ppuzzle ef16.phy < y.txt`), else the launch command's tail */
        int other_program = s->host->rank > 0 && traced[0] && !same_program(own_program(traced), prog);
        if (mine[0] && !other_program && !(traced[0] && program_matches(traced, mine)) &&
            !args_match(command, prog)) {
            /* (from the script, when there is one: like with like) */
            const char *theirs = traced[0] ? own_program(traced) : sig_program(command, prog);
            snprintf(why, sizeof why, "this run's program and arguments '%.300s' are not the "
                     "signature's ('%.300s'%s): another input or binary (predict --ignore-args "
                     "to accept)", prog, theirs,
                     theirs == command ? ", its whole launch command: no such program" : "");
            diverge(s, why);
        }
    }
}

/* p is a minor variant: another phase of the rank has the same calls, peers, tags,
 * communicators and sizes (within tol: it differs in computation only), more occurrences
 * and more of the run's time.  Its occurrences are scattered wherever the noise put them,
 * often late; the PET estimates it from the rank's ratio instead of waiting for it.  Not
 * one that carries more time than its sibling: LAMMPS's step (594 x 11 ms, 92 % of the
 * run) has the calls of a 65 us slice that occurs 1169 times, and estimating the step from
 * the ratio of that slice (whose time is its messages' latency) predicted 3-9x the run.
 * Nor one that carries >= 10 % of the rank's time: a regular heavier step with the calls of
 * a lighter one (XMDS2's nlse2d: 7 such phases, 52 % of its run, estimated from a 0.9 ms
 * phase's ratio; tests/mpi/minorheavy.c) is computation of its own, timed if it comes
 * before the rare phases' stop point, like any other. */
static int minor_variant(const pas2p_sig_rank_t *me, const pas2p_sig_phase_t *p, double tol,
                         double floor_b)
{
    if ((double)p->weight * p->time_mean_s >= 0.1 * me->elapsed_s)
        return 0;
    for (uint32_t k = 0; k < me->nphases; k++) {
        const pas2p_sig_phase_t *q = &me->phases[k];
        if (q == p || q->nevents != p->nevents || q->weight < p->weight ||
            (q->weight == p->weight && q->id > p->id) ||
            (double)q->weight * q->time_mean_s < (double)p->weight * p->time_mean_s)
            continue;
        uint32_t i = 0;
        for (; i < p->nevents; i++) {
            const pas2p_sig_event_t *a = &p->events[i], *b = &q->events[i];
            double x = (double)(a->bytes + a->rbytes), y = (double)(b->bytes + b->rbytes);
            if (a->call != b->call || a->peer != b->peer || a->tag != b->tag ||
                a->peer2 != b->peer2 || a->tag2 != b->tag2 || a->comm != b->comm ||
                (fabs(x - y) > floor_b && fabs(x - y) > tol * (x > y ? x : y)))
                break;
        }
        if (i == p->nevents)
            return 1;
    }
    return 0;
}

static const pas2p_sig_event_t *phase_shapes(sigrun_t *s, const pas2p_sig_phase_t *p,
                                              uint32_t *n);
static int size_in_range(const pas2p_sig_event_t *x, uint64_t got, uint64_t floor_b);

/* Whether an unseen phase u (relevant, none of its occurrences done by the stop point T)
 * does what the phases measured by T do: each of its calls is a call one of them makes (the
 * same call on the same communicator, a size within the range seen there, 5 % and the size
 * floor's slack; a completion any size), and its time per call (its median occurrence's)
 * is within 2x of one of theirs that shares its calls.  The same work in another number: icoFoam's later time
 * steps, whose pressure solver takes more iterations, each count a phase of its own first
 * seen after the rare point, 23 % of its run together: awaited, they held the stop to step
 * ~950 of 3000 (SET 5.1-5.4 s of a 7-9 s run).  Such a phase is estimated from the rank's
 * ratio, which was measured on those calls and that computation.  A phase with a call or
 * a size none of them makes (NetPIPE's larger messages: its later sizes were predicted at
 * 8.5x the run from the first one's ratio), or with another time per call (HPCC's STREAM
 * and DGEMM between the same barriers), is not: it is still awaited when the unseen
 * ones carry 25 % of the time. */
static double typical_s(const pas2p_sig_phase_t *p)
{
    return p->time_median_s > 0 ? p->time_median_s : p->time_mean_s;
}

/* the calls of one occurrence (a variable phase's events are its first skel_occ ones) */
static double calls_per_occ(const pas2p_sig_phase_t *p)
{
    return (double)p->nevents / (p->skel_occ > 1 ? p->skel_occ : 1);
}

static int familiar(sigrun_t *s, const pas2p_sig_phase_t *u, uint64_t stop_at)
{
    uint32_t nu, nq;
    const pas2p_sig_event_t *us = phase_shapes(s, u, &nu);
    if (!u->nevents || !nu)
        return 0;
    char *covered = calloc(nu, 1);
    if (!covered)
        return 0;
    /* (a phase's typical time per call: the median, which a base run's hiccups move less
     * than the mean -- under ctest -j2 the earlier steps' mean came out 4x their median) */
    double upc = typical_s(u) / calls_per_occ(u);
    int like = 0;
    for (uint32_t k = 0; k < s->me->nphases; k++) {
        const pas2p_sig_phase_t *q = &s->me->phases[k];
        if (q == u || !q->relevant || !q->nocc || q->occ_end[0] > stop_at || !q->nevents)
            continue;
        const pas2p_sig_event_t *qs = phase_shapes(s, q, &nq);
        int shares = 0;
        for (uint32_t i = 0; i < nu; i++) {
            const pas2p_sig_event_t *x = &us[i];
            int completion = pas2p_call_class(x->call) == PAS2P_CLASS_COMPLETION, found = 0;
            for (uint32_t j = 0; j < nq && !found; j++) {
                const pas2p_sig_event_t *y = &qs[j];
                found = y->call == x->call && y->comm == x->comm &&
                        (completion || (x->size_max && y->size_max &&
                                        size_in_range(y, x->size_min, s->sig.size_floor) &&
                                        size_in_range(y, x->size_max, s->sig.size_floor)));
            }
            covered[i] |= (char)found;
            shares |= found;
        }
        /* its time per call like one of the phases it shares calls with (not the set-up's,
         * whose few calls carry the whole start: relevant on a loaded machine) */
        double qpc = typical_s(q) / calls_per_occ(q);
        like |= shares && ((upc <= 2 * qpc && qpc <= 2 * upc) || (upc <= 0 && qpc <= 0));
    }
    int all = 1;
    for (uint32_t i = 0; i < nu; i++)
        all &= covered[i];
    free(covered);
    return all && like;
}

/* the sink's start: reads the signature (PAS2P_SIGNATURE) and lays out this rank's intervals */
static void *sig_start(const pas2p_sink_host_t *host)
{
    sigrun_t *s = calloc(1, sizeof *s);
    if (!s) {
        fprintf(stderr, "pas2p: rank %d: out of memory\n", host->rank);
        PMPI_Abort(MPI_COMM_WORLD, 3);
        _exit(3);
    }
    s->host = host;
    s->comm = s->nb = MPI_COMM_NULL;
    const char *rep = getenv("PAS2P_PREDICT_REPORTS");
    s->predict_reports = rep && !strcmp(rep, "1");
    const char *sig_path = getenv("PAS2P_SIGNATURE"), *dir = getenv("PAS2P_PREDICT_DIR");
    if (!sig_path)
        sig_path = "";
    snprintf(s->dir, sizeof s->dir, "%s", dir && *dir ? dir : ".");
    char err[512], why[1200];
    /* np and the program are checked first, from the file's first element: a run that
     * cannot be the signature's is refused before the whole file is read (ABySS's 82 MB:
     * 15 s); a file the peek cannot read is checked after the full read, which says why */
    char peek_cmd[sizeof s->sig.command], peek_prog[sizeof s->sig.program];
    uint32_t peek_np = 0;
    int peeked = !pas2p_signature_peek(sig_path, peek_cmd, sizeof peek_cmd, &peek_np, peek_prog,
                                       sizeof peek_prog);
    if (peeked)
        check_launch(s, host->np, peek_cmd, peek_prog, peek_np);
    /* this rank's table only, streamed: the other ranks' are read past, and the phases
     * are built one at a time (ABySS's 82 MB signature: 1.35 GB per rank read whole) */
    if (host->rank < 0 || pas2p_signature_read_rank(sig_path, (uint32_t)host->rank, &s->sig, err, sizeof err)) {
        snprintf(why, sizeof why, "%s", host->rank < 0 ? "no rank" : err);
        diverge(s, why);
    }
#ifdef __GLIBC__
    /* what the reader freed, glibc keeps unless told: given back to the system before the
     * application runs */
    malloc_trim(0);
#endif
    if (!peeked)
        check_launch(s, host->np, s->sig.command, s->sig.program, s->sig.np);
    for (uint32_t r = 0; r < s->sig.nranks; r++)
        if ((int)s->sig.ranks[r].rank == host->rank)
            s->me = &s->sig.ranks[r];
    if (!s->me) {
        snprintf(why, sizeof why, "the signature has no phase table for rank %d", host->rank);
        diverge(s, why);
    }
    long occ = 2;
    const char *e = getenv("PAS2P_OCCURRENCES");
    if (e && atol(e) > 0)
        occ = atol(e);
    uint32_t n = 0;
    for (uint32_t k = 0; k < s->me->nphases; k++)
        n += s->me->phases[k].nocc;
    s->iv = calloc(n ? n : 1, sizeof *s->iv);
    if (!s->iv)
        diverge(s, "out of memory");
    const char *me_env = getenv("PAS2P_MEASURE_END");
    int measure_end = me_env && !strcmp(me_env, "1");
    const char *te_env = getenv("PAS2P_TO_END");
    s->to_end = te_env && !strcmp(te_env, "1");
    /* a phase that occurs once, at MPI_Finalize, would forbid the early stop: by default
     * it is not timed, and the PET estimates it (base time x the rank's ratio); a phase
     * that first occurs in the second half of the run and carries little of it (a short
     * loop in the wind-down) would hold the stop back to the end: estimated the same way.
     * Unless the rank has nothing else to measure (an EP-like code whose relevant work
     * happens once, at the end): then they are timed and the run goes to its end */
    /* the rank's last ordinal: its event count, or for a global signature (whose ordinals
     * leave failed polls out) the end of the last occurrence it locates */
    uint64_t me_end = s->me->events;
    if (s->sig.global) {
        me_end = 0;
        for (uint32_t k = 0; k < s->me->nphases; k++)
            for (uint32_t j = 0; j < s->me->phases[k].nocc; j++)
                if (s->me->phases[k].occ_end[j] > me_end)
                    me_end = s->me->phases[k].occ_end[j];
    }
    /* Rare phases.  A phase's natural stop is the end of the occurrence the stop waits for
     * (the occ-th after the warm-up).  The stop point T is the earliest natural stop of a
     * phase that repeats (a one-off phase is not a loop to wait for), or
     * PAS2P_RARE_AFTER (predict --rare-after; default 1: none is rare) of the rank's run if that is
     * later.  A relevant phase whose natural stop comes after T is rare (stencil2d's
     * Allreduce every 10 iterations, md's every 50 steps): it is measured by its occurrences
     * that end by T, the first included (a phase that comes rarely is cold every time: its
     * first occurrence is as typical as any), and one with none by then is estimated as
     * base time x the rank's ratio; its later occurrences are still timed if they complete
     * before the stop.  The steady state (steady()) has its own point, PAS2P_STEADY_BUDGET
     * of the calls (or T if later): a budget of 0.01 for the rare phases with the steady
     * state capped there too cut short the timing of loops whose first values disagree. */
    double rare_after = 1; /* off unless predict says (--rare-after) */
    const char *ra = getenv("PAS2P_RARE_AFTER");
    if (ra && *ra)
        rare_after = atof(ra);
    s->me_end = me_end;
    uint64_t first_stop = UINT64_MAX, stop_at = me_end, steady_at = me_end;
    int others = 0, await_unseen = 0;
    /* Late phases: each is a short loop of the wind-down (< 25 % of the rank's time
     * together), estimated rather than awaited.  Unseen phases: the relevant ones that no
     * occurrence of shows by the stop point T, late or rare.  Together they may be most of
     * the run: NetPIPE sweeps message sizes, each size a phase of its own, and the four in
     * its second half (14-20 % of the run each, 65 % in all) were all estimated from the
     * first one's ratio (PET 8.5x the run).  When the unseen ones carry 25 % of the rank's
     * time or more, none is late, and each rare one's first occurrence is awaited. */
    double late_s = 0, unseen_s = 0;
    for (uint32_t k = 0; k < s->me->nphases; k++) {
        const pas2p_sig_phase_t *p = &s->me->phases[k];
        if (p->relevant && p->nocc && p->occ_start[0] > me_end / 2 &&
            !(p->weight == 1 && p->nocc == 1 && p->occ_end[0] >= me_end)) /* (not the end's) */
            late_s += (double)p->weight * p->time_mean_s;
    }
    int lates = late_s < 0.25 * s->me->elapsed_s;
    /* The end's phase (once, to MPI_Finalize) is estimated as base time x the rank's ratio
     * unless --measure-end: an EP-like code's last stretch.  When it holds half the rank's
     * time or more, that estimate rests most of the PET on another phase's ratio (tree-
     * puzzle's puzzling step, 70 % of its run, from its set-up's ratio: PET 0.9-1.7x the run
     * in three predictions): it is timed, and the run goes to its end, said so.  (Under
     * half, stopping early saves more than half the run: the bundled codes at test size
     * end with a verification of 40-67 %.) */
    double end_s = 0;
    for (uint32_t k = 0; k < s->me->nphases; k++) {
        const pas2p_sig_phase_t *p = &s->me->phases[k];
        if (p->relevant && p->weight == 1 && p->nocc == 1 && p->occ_end[0] >= me_end)
            end_s += p->time_mean_s;
    }
    if (!measure_end && end_s >= 0.5 * s->me->elapsed_s && s->me->elapsed_s > 0) {
        measure_end = 1;
        s->end_share = end_s / s->me->elapsed_s;
    }
    for (uint32_t pass = 0; pass < 3; pass++)
    for (uint32_t k = 0; k < s->me->nphases; k++) {
        const pas2p_sig_phase_t *p = &s->me->phases[k];
        int at_end = p->weight == 1 && p->nocc == 1 && p->occ_end[0] >= me_end;
        int minor = minor_variant(s->me, p, s->sig.size_tolerance, (double)s->sig.size_floor);
        int late = lates && p->nocc && p->occ_start[0] > me_end / 2;
        uint64_t natural = p->nocc ? p->occ_end[p->nocc == 1 ? 0 : (occ < (long)p->nocc - 1 ? (uint32_t)occ : p->nocc - 1)] : 0;
        if (pass == 0) {
            int candidate = p->relevant && p->nocc && !at_end && !minor && !late;
            others += candidate;
            if (candidate && p->nocc > 1 && natural < first_stop)
                first_stop = natural; /* the first repeating phase's: never rare itself */
            if (k + 1 == s->me->nphases && !others)
                measure_end = 1;
            if (k + 1 == s->me->nphases) {
                stop_at = rare_after > 0 && rare_after < 1 ? (uint64_t)(rare_after * (double)me_end)
                                                           : me_end;
                if (first_stop != UINT64_MAX && first_stop > stop_at)
                    stop_at = first_stop;
                steady_at = (uint64_t)(PAS2P_STEADY_BUDGET * (double)me_end);
                if (steady_at < stop_at)
                    steady_at = stop_at;
            }
            continue;
        }
        int rare = p->relevant && p->nocc > 1 && !at_end && !minor && !late && natural > stop_at;
        /* the phase that carries half the rank's time or more is not rare when its own
         * occurrences come within twice the steady state's point: it is awaited as a
         * repeating phase is, not estimated from its first occurrence or from another
         * phase's ratio (HPCG's CG iterations, 96 % of its run, first at 3.2 % of its calls,
         * were estimated from a 1.9 % set-up phase's three occurrences as familiar: PET 2.7x
         * the run) */
        if (rare && (double)p->weight * p->time_mean_s >= 0.5 * s->me->elapsed_s) {
            /* ... nor when awaiting its 2-4th occurrences costs at most the steady state's
             * budget of calls beyond its first, whose end the stop reaches anyway (before
             * stop_at, or awaited as unseen): miniMD at 100 steps, np 4, spends 66 % of its
             * run in a phase first seen at 22 % of its 882 calls, 8 calls apart: timed once,
             * cold, PET +50 to +78 % in --to-end runs */
            uint64_t from = p->occ_end[0] > stop_at ? p->occ_end[0] : stop_at;
            int first_comes = p->occ_end[0] <= stop_at || (pass == 2 && await_unseen);
            if (natural <= 2 * steady_at ||
                (first_comes && natural - from <= (uint64_t)(PAS2P_STEADY_BUDGET * (double)me_end)))
                rare = 0;
        }
        if (pass == 1) {
            if (p->relevant && p->nocc && !at_end && !minor && !measure_end &&
                (late || (rare && p->occ_end[0] > stop_at)) && !familiar(s, p, stop_at))
                unseen_s += (double)p->weight * p->time_mean_s;
            if (k + 1 == s->me->nphases && unseen_s >= 0.25 * s->me->elapsed_s)
                await_unseen = 1, lates = 0; /* (first_stop stays: the late ones come later) */
            continue;
        }
        for (uint32_t j = 0; j < p->nocc; j++) {
            interval_t *v = &s->iv[s->niv++];
            /* the first occurrence warms up when there are more; the stop waits for the next
             * occ, and those after them are timed too while the run goes on (another phase's
             * occurrences are awaited): more samples for the median at no cost in SET.  A
             * late phase is timed the same way but never awaited: its occurrences count if
             * they complete before the stop (NetPIPE's when the stop waits for a later one) */
            int timed = p->relevant && (!at_end || measure_end) &&
                        (p->nocc == 1 || rare ? 1 : j >= 1);
            if (timed && minor)
                timed = 2; /* not waited for; its line is for the estimator study */
            int measured = timed == 1 && (!late || measure_end) &&
                           (rare ? p->occ_end[j] <= stop_at || (await_unseen && j == 0)
                                 : p->nocc == 1 || j <= (uint32_t)occ);
            *v = (interval_t){.start = s->sig.anchored ? p->occ_astart[j] : p->occ_start[j],
                              .end = s->sig.anchored ? p->occ_aend[j] : p->occ_end[j],
                              .phase = k, .measured = measured, .timed = timed, .t0 = -1,
                              .t1 = -1, .oend = p->occ_end[j], .occ = j};
            s->nmeasured += (uint32_t)measured;
        }
    }
    qsort(s->iv, s->niv, sizeof *s->iv, cmp_iv);
    s->stop_at = stop_at;
    s->steady_at = steady_at;
    s->steady_cap = (uint32_t)(2 * occ + 1);
    s->last = s->niv;
    s->run_close = UINT32_MAX;
    s->tol = s->sig.size_tolerance;
    PMPI_Comm_dup(MPI_COMM_WORLD, &s->comm);
    PMPI_Comm_dup(MPI_COMM_WORLD, &s->nb);
    s->nb_req[0] = s->nb_req[1] = MPI_REQUEST_NULL;
    return s;
}

/* a size the base run had at this call: within the size tolerance and floor of the
 * recorded size (signature/FORMAT.md's thresholds) */
static int size_ok(uint64_t a, uint64_t b, double tol, uint64_t floor_b)
{
    uint64_t mx = a > b ? a : b, mn = a < b ? a : b;
    return mx - mn <= floor_b || (double)(mx - mn) <= tol * (double)mx;
}

/* within the range the base run saw at this call (global phases): 5 % slack, and the
 * size floor's bytes (sizes that close were one event to the analysis) */
static int size_in_range(const pas2p_sig_event_t *x, uint64_t got, uint64_t floor_b)
{
    double g = (double)got, f = (double)floor_b;
    return g >= 0.95 * (double)x->size_min - f && g <= 1.05 * (double)x->size_max + f;
}

/* how far a relevant phase's message size may move from the base's range between runs of
 * the same program and input before it is another event (check_event) */
#define SIZE_DRIFT 4.0

/* the base run's sizes at this call varied (data-dependent sizes), and got is within a
 * factor of SIZE_DRIFT of their range, the size floor's bytes added.  A call whose size
 * was the same in every occurrence keeps it: another input (cg 256 after cg 128 sends 4x
 * the bytes) still diverges there, predict --ignore-args or not */
static int size_drifted(const pas2p_sig_event_t *x, uint64_t got, uint64_t floor_b)
{
    double g = (double)got, f = (double)floor_b;
    return x->size_max > x->size_min && g >= (double)x->size_min / SIZE_DRIFT - f &&
           g <= (double)x->size_max * SIZE_DRIFT + f;
}

/* the skeleton's tag `want` takes the run's `got`: the same, or a wildcard receive's, or
 * one that counts up from call to call (PAS2P_TAG_COUNTING: mpi4py's pickled collectives,
 * pas2p_tag_count) */
static int tag_ok(int32_t want, int32_t got)
{
    return want == got || want == PAS2P_TAG_ANY || want == PAS2P_TAG_COUNTING;
}

/* two events' shapes (phase_shapes) in order */
static int cmp_shape(const void *a, const void *b)
{
    const pas2p_sig_event_t *x = a, *y = b;
#define CMP_FIELD(f)                                                                       \
    if (x->f != y->f)                                                                    \
        return x->f < y->f ? -1 : 1;
    CMP_FIELD(call) CMP_FIELD(comm) CMP_FIELD(peer) CMP_FIELD(peer2) CMP_FIELD(tag)
    CMP_FIELD(size_min) CMP_FIELD(size_max)
#undef CMP_FIELD
    return 0;
}

static int cmp_shape_ix(const void *a, const void *b, void *events)
{
    const pas2p_sig_event_t *e = events;
    return cmp_shape(&e[*(const uint32_t *)a], &e[*(const uint32_t *)b]);
}

/* Phase p's calls as distinct shapes: one entry per (call, communicator, peers, tag, size
 * range), all that skeleton_makes(), tolerate() and shuffled() compare.  They looked through
 * every call of the skeleton for each call the run made out of its place: Ray (a
 * message-driven assembler; its one phase, the whole run, 186 k calls a rank, made in
 * another order by every run) ran 7x its own time under predict, 14 % of it in that scan.
 * Built once per phase, sorted and made unique; the phase's own events when memory runs
 * out (the same answers, slower).  *n the count. */
static const pas2p_sig_event_t *phase_shapes(sigrun_t *s, const pas2p_sig_phase_t *p, uint32_t *n)
{
    uint32_t k = (uint32_t)(p - s->me->phases);
    *n = p->nevents;
    if (!s->shapes) {
        s->shapes = calloc(s->me->nphases, sizeof *s->shapes);
        s->nshapes = calloc(s->me->nphases, sizeof *s->nshapes);
        if (!s->shapes || !s->nshapes) {
            free(s->shapes);
            free(s->nshapes);
            s->shapes = NULL;
            s->nshapes = NULL;
            return p->events;
        }
    }
    if (s->shapes[k]) {
        *n = s->nshapes[k];
        return s->shapes[k];
    }
    if (!p->nevents)
        return p->events;
    /* the events' indices sorted by shape (4 bytes an event, not a copy of 120: Ray's phase
     * of 7 M calls), then one copy of each distinct shape */
    uint32_t *ix = malloc(sizeof *ix * p->nevents);
    if (!ix)
        return p->events;
    for (uint32_t i = 0; i < p->nevents; i++)
        ix[i] = i;
    qsort_r(ix, p->nevents, sizeof *ix, cmp_shape_ix, (void *)p->events);
    uint32_t m = 1;
    for (uint32_t i = 1; i < p->nevents; i++)
        m += cmp_shape(&p->events[ix[i]], &p->events[ix[i - 1]]) != 0;
    pas2p_sig_event_t *v = malloc(sizeof *v * m);
    if (!v) {
        free(ix);
        return p->events;
    }
    m = 0;
    for (uint32_t i = 0; i < p->nevents; i++) {
        const pas2p_sig_event_t *x = &p->events[ix[i]];
        if (i && !cmp_shape(x, &p->events[ix[i - 1]]))
            continue;
        v[m++] = (pas2p_sig_event_t){.call = x->call, .comm = x->comm, .peer = x->peer,
                                     .peer2 = x->peer2, .tag = x->tag, .size_min = x->size_min,
                                     .size_max = x->size_max};
    }
    free(ix);
    s->shapes[k] = v;
    s->nshapes[k] = m;
    *n = m;
    return s->shapes[k];
}

/* 1 when phase p's skeleton makes e somewhere: the same call, communicator and tag (or a
 * wildcard tag), any peer, a size within the range seen at one such call, or between the
 * least and the most of all of them (HPCC's RandomAccess sends full buckets of 8192 bytes
 * and, at the end, what is left: 464 bytes in the base run, 4760 in the next; a probe
 * from any source: any probe, any size); a completion call is any completion call of the
 * skeleton: which one
 * completes a request depends on timing too (HPCC's RandomAccess tests its wildcard
 * receives with MPI_Testany while it sends, and drains what is left with MPI_Waitany: how
 * many are left at the end, none in one run, is the arrivals' order) */
static int skeleton_makes(sigrun_t *s, const pas2p_sig_phase_t *p, const pas2p_event_t *e)
{
    uint64_t got = e->bytes + e->rbytes;
    int any_size = pas2p_call_class(e->call) == PAS2P_CLASS_COMPLETION;
    int probe = e->call == PAS2P_CALL_Probe || e->call == PAS2P_CALL_Iprobe;
    pas2p_sig_event_t span = {.size_min = UINT64_MAX}; /* the range over the same calls */
    uint32_t nx;
    const pas2p_sig_event_t *xs = phase_shapes(s, p, &nx);
    for (uint32_t k = 0; k < nx; k++) {
        const pas2p_sig_event_t *x = &xs[k];
        if (any_size && pas2p_call_class(x->call) == PAS2P_CLASS_COMPLETION)
            return 1;
        /* a wildcard probe finds whichever message came first, blocking or polling (MUMPS's
         * solve): any probe of the skeleton's from any source on the communicator, any
         * size (the receive that follows has its own).  (Signatures written before
         * analysis/probes="polls": since, no probe is a numbered call, none reaches here) */
        if (probe && (x->call == PAS2P_CALL_Probe || x->call == PAS2P_CALL_Iprobe) &&
            x->peer == PAS2P_PEER_ANY && x->comm == e->comm && tag_ok(x->tag, e->tag))
            return 1;
        if (x->call == e->call && x->comm == e->comm && tag_ok(x->tag, e->tag)) {
            if (any_size || !x->size_max || size_in_range(x, got, s->sig.size_floor))
                return 1;
            span.size_min = x->size_min < span.size_min ? x->size_min : span.size_min;
            span.size_max = x->size_max > span.size_max ? x->size_max : span.size_max;
        }
    }
    return span.size_max && size_in_range(&span, got, s->sig.size_floor);
}

static int tolerate(sigrun_t *s, const interval_t *v, const pas2p_event_t *e, const char *why);

/* A phase whose calls vary from occurrence to occurrence (a farm's round: which worker
 * answers first decides the order and how many tasks each one gets): each call must be one
 * the skeleton makes (skeleton_makes), in any order and number.  Another program or input
 * still departs within a call or two; in a phase that is not timed, or is timed whole
 * (weight 1: MUMPS's factorization, whose dynamic scheduling sends fronts of sizes the
 * base run never did), that is a departure (tolerate()). */
static void check_member(sigrun_t *s, const interval_t *v, const pas2p_event_t *e, uint64_t i)
{
    const pas2p_sig_phase_t *p = &s->me->phases[v->phase];
    if (skeleton_makes(s, p, e))
        return;
    char why[600];
    snprintf(why, sizeof why, "diverged from the signature at event %llu (phase %u, whose calls "
             "vary, occurrence at %llu:%llu): this run made an %s on comm %u (tag %d, %llu "
             "bytes sent, %llu received) that the phase's calls never include",
             (unsigned long long)i, p->id, (unsigned long long)(v->start >> 32),
             (unsigned long long)(v->start & 0xffffffffu), pas2p_call_name(e->call), e->comm,
             e->tag, (unsigned long long)e->bytes, (unsigned long long)e->rbytes);
    if (tolerate(s, v, e, why) || departs_when_done(s, why)) /* never timed, or timed whole */
        return;
    diverge(s, why);
}

static int anchor(const sigrun_t *s, const pas2p_event_t *e);

/* An anchored signature locates every occurrence by the anchors (all-rank blocking
 * collectives) before it, not by a count of all the calls, so a round that makes other
 * point-to-point calls than the base run's shifts nothing after its next anchor.  A round of
 * a phase that is not relevant (never timed, its time the remainder's or its weight's), or
 * of a phase of weight 1 (timed whole between its anchors: its time is the target's
 * whatever calls it makes, nothing is extrapolated from it), may then depart from its
 * skeleton, as long as its anchors are the skeleton's (the same collective on the same
 * communicator): such a departure is counted and said (`departed` in the times file), not
 * a divergence.  Why: programs whose calls between two collectives depend on the wall
 * clock, not on the input -- HPCC's PTRANS seeds its randomised process grid with
 * time(NULL) summed over the ranks, and the rank that lands at 0x0 sends its timings to
 * rank 0 (an MPI_Send/MPI_Recv that is there in one run and not in the next); whether such
 * a one-off round is relevant is the traced run's noise (a 4 ms preemption in its
 * MPI_Barrier is 1 % of a short run).  A relevant phase that repeats may depart only by
 * making its skeleton's calls in another order or number (each one a call the skeleton
 * makes somewhere, skeleton_makes()): PTRANS's grid round with the 0x0 rank's message or
 * without it, once the rounds' copies of the world keep one id (tracer/FORMAT.md,
 * "Communicator ids") and the rounds repeat.  Another program or input still departs at an
 * anchor, or in a relevant phase that repeats with a call or a size its skeleton does not
 * make.  Returns 1 when the departure is tolerated. */
static void depart(sigrun_t *s, const interval_t *v, const char *why);

static int tolerate(sigrun_t *s, const interval_t *v, const pas2p_event_t *e, const char *why)
{
    const pas2p_sig_phase_t *p = &s->me->phases[v->phase];
    if (!s->sig.anchored)
        return 0;
    if (p->relevant && p->weight > 1 && (p->variable || !skeleton_makes(s, p, e)))
        return 0;
    if (anchor(s, e)) {
        uint32_t k = 0, nx;
        const pas2p_sig_event_t *xs = phase_shapes(s, p, &nx);
        while (k < nx && !(xs[k].call == e->call && xs[k].comm == e->comm))
            k++;
        if (k == nx)
            return 0;
    }
    depart(s, v, why);
    return 1;
}

/* a departure from occurrence v, counted once per occurrence and the first one said as a
 * divergence would be: the run goes on */
static void depart(sigrun_t *s, const interval_t *v, const char *why)
{
    if (s->departed_last != v) {
        if (!s->departed) /* said as a departure, not a divergence: the run goes on */
            snprintf(s->departed_why, sizeof s->departed_why, "%s%.580s",
                     strncmp(why, "diverged ", 9) ? "" : "departed ",
                     strncmp(why, "diverged ", 9) ? why : why + 9);
        s->departed++;
        s->departed_last = v;
    }
}

/* A signature located by ordinals (not anchored): a phase that is never timed may make
 * its skeleton's calls in another order, with other peers, tags or sizes -- NWChem's DFT
 * deals its integration grid out at run time: where rank 0 received a batch from any rank
 * in the traced run it sends one to rank 1 in the next, its tag the batch's number.  A
 * call that the skeleton makes somewhere (the same call on the same communicator) is a
 * departure, counted and said.  The occurrence must still make as many calls as the
 * skeleton: the ordinals of everything after it are the base run's, so a longer or
 * shorter one departs at the next phase's calls, exact there when that phase is relevant
 * (or timed, weight 1: a relevant phase never departs this way, so that another input is
 * caught where it starts), and MPI_Finalize at another ordinal than the traced run's
 * diverges.  A relevant phase may make its skeleton's calls in another order after its
 * first call (k > 0), each one a call the skeleton makes somewhere (the same call --
 * MPI_Waitall is not MPI_Waitsome here --, peers, communicator and tag, a size in the
 * range seen there; a probe or completion any size): dolfinx's sparse exchange
 * (MPI_Issend to its neighbours, then MPI_Iprobe and MPI_Recv for whatever comes, and
 * MPI_Ibarrier once its own sends are done) posts its Ibarrier before or after the last
 * receives as timing has it -- every predict run diverged there, at call 60 of a phase
 * with 46 % of the run.  Its time is still its calls'.  A relevant phase of weight 1
 * (timed whole) may, after its first call, make any of its skeleton's calls on the same
 * communicator, as a phase that is never timed.  Returns 1 when tolerated. */
static int shuffled(sigrun_t *s, const interval_t *v, const pas2p_event_t *e, uint64_t k0,
                    const char *why)
{
    const pas2p_sig_phase_t *p = &s->me->phases[v->phase];
    if (s->sig.anchored)
        return 0;
    uint32_t nx;
    const pas2p_sig_event_t *xs = phase_shapes(s, p, &nx);
    if (p->relevant) {
        if (k0 == 0)
            return 0;
        uint64_t got = e->bytes + e->rbytes;
        int any_size = pas2p_call_class(e->call) == PAS2P_CLASS_COMPLETION ||
                       e->call == PAS2P_CALL_Probe || e->call == PAS2P_CALL_Iprobe;
        for (uint32_t k = 0; k < nx; k++) {
            const pas2p_sig_event_t *x = &xs[k];
            if (x->call == e->call && x->comm == e->comm && tag_ok(x->tag, e->tag) &&
                (x->peer == e->peer || x->peer == PAS2P_PEER_ANY) &&
                (x->peer2 == e->peer2 || x->peer2 == PAS2P_PEER_ANY) &&
                (any_size || !x->size_max || size_in_range(x, got, s->sig.size_floor))) {
                depart(s, v, why);
                return 1;
            }
        }
        if (p->weight > 1)
            return 0;
        /* a relevant phase of weight 1 is timed whole, nothing extrapolated from it: after
         * its first call, another rank, tag or size of a call its skeleton makes on the
         * same communicator is a departure, as in a phase that is never timed (dolfinx's
         * assembly and solve, 46 % of its run, broadcast from rank 0 in the traced run
         * and from rank 1 in the next: its partitioning differs from run to run).  Not a
         * message to or from MPI_PROC_NULL where the base had a rank, or the reverse: that
         * is another program (another boundary), caught where it starts */
        int null = e->peer == PAS2P_PEER_NULL || e->peer2 == PAS2P_PEER_NULL;
        for (uint32_t k = 0; k < nx; k++) {
            const pas2p_sig_event_t *x = &xs[k];
            if (x->call == e->call && x->comm == e->comm &&
                null == (x->peer == PAS2P_PEER_NULL || x->peer2 == PAS2P_PEER_NULL)) {
                depart(s, v, why);
                return 1;
            }
        }
        return 0;
    }
    for (uint32_t k = 0; k < nx; k++) {
        const pas2p_sig_event_t *x = &xs[k];
        if (x->call == e->call && x->comm == e->comm) {
            depart(s, v, why);
            return 1;
        }
    }
    return 0;
}

/* How many fewer calls than its skeleton the end's phase may make before MPI_Finalize
 * (end_early) */
#define END_SHORT 0.05

/* The run calls MPI_Finalize k calls into occurrence v, before its skeleton's end: 1 when
 * that is the end's phase, timed whole to MPI_Finalize (once, its skeleton's last call
 * MPI_Finalize), and the run made at least 1 - END_SHORT of its calls.  Ray (an assembler
 * driven by the messages it receives, its whole run one phase) made 186 201 calls before
 * MPI_Finalize where its traced run made 186 368, with the same input: every predict run
 * diverged at its end.  Its time is the run's to MPI_Finalize; nothing is extrapolated from
 * it.  A shorter run by more than that (other arguments or input), or an early
 * MPI_Finalize in any other phase, still diverges. */
static int end_early(const sigrun_t *s, const interval_t *v, uint64_t k)
{
    const pas2p_sig_phase_t *p = &s->me->phases[v->phase];
    return p->weight == 1 && p->nocc == 1 && p->nevents &&
           p->events[p->nevents - 1].call == PAS2P_CALL_Finalize &&
           (double)k >= (1 - END_SHORT) * (double)p->nevents;
}

/* where occurrence v starts, for a message: an ordinal, or (anchored) the anchor it follows */
static const char *occ_at(const sigrun_t *s, const interval_t *v, char *at, size_t len)
{
    if (s->sig.anchored)
        snprintf(at, len, "anchor %llu + %llu", (unsigned long long)(v->start >> 32),
                 (unsigned long long)(v->start & 0xffffffffu));
    else
        snprintf(at, len, "%llu", (unsigned long long)v->start);
    return at;
}

/* event i (ordinal) of the rank, the k-th of the occurrence v; 1 when the occurrence ends
 * at this call before its skeleton's end (end_early), 0 otherwise */
static int check_event(sigrun_t *s, const interval_t *v, const pas2p_event_t *e, uint64_t i,
                       uint64_t k)
{
    const pas2p_sig_phase_t *p = &s->me->phases[v->phase];
    if (p->variable) {
        check_member(s, v, e, i);
        return 0;
    }
    char at[64]; /* (occ_at, where a message needs it: not formatted for every call) */
    if (k >= p->nevents) { /* the occurrence is longer than its skeleton */
        char why[400];
        snprintf(why, sizeof why, "diverged from the signature at event %llu (phase %u, call "
                 "%llu of its occurrence at %s): the phase has %u calls, got %s",
                 (unsigned long long)i, p->id, (unsigned long long)k, occ_at(s, v, at, sizeof at), p->nevents,
                 pas2p_call_name(e->call));
        if (tolerate(s, v, e, why) || departs_when_done(s, why))
            return 0;
        diverge(s, why);
    }
    const pas2p_sig_event_t *x = &p->events[k];
    /* a completion's bytes are those of the requests it happened to complete (Waitsome,
     * Test*: timing; a request completed by an earlier call in one run and not in the
     * other): not part of the skeleton the application must follow */
    int any_size = pas2p_call_class(e->call) == PAS2P_CLASS_COMPLETION;
    /* sizes: within the range the base run saw at this call (global phases, 5 % slack), or
     * within the size tolerance of the recorded size; a wildcard receive takes any peer */
    uint64_t got = e->bytes + e->rbytes;
    int size = any_size || (x->size_max ? size_in_range(x, got, s->sig.size_floor)
                                        : size_ok(x->bytes + x->rbytes, got, s->tol,
                                                  s->sig.size_floor));
    int same = x->call == e->call && (x->peer == e->peer || x->peer == PAS2P_PEER_ANY) &&
               tag_ok(x->tag, e->tag) &&
               (x->peer2 == e->peer2 || x->peer2 == PAS2P_PEER_ANY) && x->comm == e->comm;
    if (same && size)
        return 0;
    char why[600];
    if (e->call == PAS2P_CALL_Finalize) { /* the run ended: say that, not a call mismatch */
        /* located by anchors, the calls between two all-rank collectives may vary in
         * number: mplrs (a farm with no collective at all) made 2725 where its base made
         * 8992, with the same input */
        snprintf(why, sizeof why, "diverged from the signature: the application called "
                 "MPI_Finalize at event %llu of the %llu the traced run made on this rank "
                 "(phase %u expected %s): %s", (unsigned long long)i,
                 (unsigned long long)s->me->events, p->id, pas2p_call_name(x->call),
                 s->sig.anchored
                     ? "fewer calls than the traced run made since its last all-rank "
                       "collective (other arguments or input, an error of its own, or calls "
                       "whose number follows timing with no collective to follow them by: "
                       "replay and simulate need no application)"
                     : "a shorter run than the traced one (other arguments or input, or it "
                       "stopped on an error of its own: see its output)");
        if (end_early(s, v, k)) { /* said as a departure; the occurrence ends here */
            depart(s, v, why);
            return 1;
        }
        if (departs_when_done(s, why))
            return 0;
        diverge(s, why);
    }
    snprintf(why, sizeof why, "diverged from the signature at event %llu (phase %u, call %llu "
             "of its occurrence at %s): expected %s peer %d tag %d comm %u bytes %llu+%llu, got "
             "%s peer %d tag %d comm %u bytes %llu+%llu (sent+received)",
             (unsigned long long)i, p->id, (unsigned long long)k, occ_at(s, v, at, sizeof at),
             pas2p_call_name(x->call), x->peer, x->tag, x->comm, (unsigned long long)x->bytes,
             (unsigned long long)x->rbytes, pas2p_call_name(e->call), e->peer, e->tag, e->comm,
             (unsigned long long)e->bytes, (unsigned long long)e->rbytes);
    /* the same call with a size the base run did not see, in a phase that is never timed:
     * the calls are numbered as in the base run, so it is a departure, counted and said,
     * not a divergence (NWChem's DFT deals its grid out at run time: a set-up message of
     * 10368 bytes in the traced run, 11136 in the next).  In a relevant phase a size the
     * base did not see is still a divergence: its time would not be the base's phase's. */
    if (same && !p->relevant) {
        depart(s, v, why);
        return 0;
    }
    /* the same call, peers, tag and communicator in a relevant phase, where the base's
     * sizes varied, with a size within a factor of SIZE_DRIFT of their range: data that
     * moved between runs of the same program and input -- dolfinx's mesh partitioning
     * differs from run to run, and so its ghost exchange (an MPI_Alltoallv of 3184-3500
     * bytes in 160 steps of the traced run, 6344 in the next).  A departure, counted and
     * said; the phase is timed as this run makes it.  Sizes further off, or a size that
     * was fixed in the base, still diverge (size_drifted). */
    if (same && size_drifted(x, got, s->sig.size_floor)) {
        depart(s, v, why);
        return 0;
    }
    /* a rooted collective whose root moved, on the same communicator with a size the base
     * saw: where the data sits changed between runs of the same program and input (FEniCSx
     * broadcasts from the rank its partitioning gave a value: rank 1 in the traced run, rank
     * 0 in the next, and 1 of 3 predictions diverged).  The collective costs what it costs
     * from either root on the same machine: a departure, counted and said */
    if (pas2p_call_class(e->call) == PAS2P_CLASS_COLLECTIVE && x->call == e->call &&
        x->comm == e->comm && x->peer >= 0 && e->peer >= 0 && x->peer != e->peer &&
        tag_ok(x->tag, e->tag) && (size || size_drifted(x, got, s->sig.size_floor))) {
        s->root_moved_first |= !s->departed;
        depart(s, v, why);
        return 0;
    }
    if (tolerate(s, v, e, why) || shuffled(s, v, e, k, why) || departs_when_done(s, why))
        return 0;
    diverge(s, why);
    return 0;
}

static void count_messages(sigrun_t *s, const pas2p_event_t *e)
{
    switch (e->call) {
    case PAS2P_CALL_Send: case PAS2P_CALL_Ssend: case PAS2P_CALL_Bsend: case PAS2P_CALL_Rsend:
    case PAS2P_CALL_Isend: case PAS2P_CALL_Issend: case PAS2P_CALL_Ibsend: case PAS2P_CALL_Irsend:
        s->msg_sent += e->peer >= 0;
        break;
    case PAS2P_CALL_Recv:
        s->msg_recvd += e->peer >= 0;
        break;
    case PAS2P_CALL_Sendrecv: case PAS2P_CALL_Sendrecv_replace:
        s->msg_sent += e->peer >= 0;
        s->msg_recvd += e->peer2 >= 0;
        break;
    default:
        break;
    }
}

/* a collective every rank takes part in: on the world, or on a communicator that the
 * signature records with all np ranks (every rank reaches the same occurrence of it) */
static int world_wide(const sigrun_t *s, uint32_t comm)
{
    if (comm == PAS2P_COMM_WORLD)
        return 1;
    for (uint32_t i = 0; i < s->sig.ncomms; i++)
        if (s->sig.comms[i].id == comm)
            return s->sig.comms[i].size == s->sig.np;
    return 0;
}

/* an anchor: a blocking collective every rank takes part in (MPI_Ibcast & co. are not):
 * where the early stop is agreed, and what an anchored signature counts */
static int anchor(const sigrun_t *s, const pas2p_event_t *e)
{
    return pas2p_call_class(e->call) == PAS2P_CLASS_COLLECTIVE &&
           pas2p_call_name(e->call)[4] != 'I' && world_wide(s, e->comm);
}

/* A stop point: an anchor that no rank leaves before every rank has entered it (a barrier,
 * a reduction or exchange every rank receives from every other).  Every rank makes these
 * in one order (made in two orders, they would deadlock the application), so each rank's
 * k-th agreement follows the same collective.  Not a rooted one: murasaki-mpi's root makes
 * small broadcasts on MPI_COMM_WORLD and on a world-sized split of it in one order, the
 * other rank in the other, which eager broadcasts allow; an agreement after each held the
 * root there while the other rank waited in the broadcast the root makes next -- predict
 * hung.  Nor a v-form (a rank whose counts are all 0 may leave at once; Reduce_scatter's
 * is a reduction to one rank, then a scatter). */
static int stop_point(const sigrun_t *s, const pas2p_event_t *e)
{
    switch (e->call) {
    case PAS2P_CALL_Barrier: case PAS2P_CALL_Allreduce: case PAS2P_CALL_Allgather:
    case PAS2P_CALL_Alltoall: case PAS2P_CALL_Reduce_scatter_block:
        return anchor(s, e);
    default:
        return 0;
    }
}

/* ------------------------------------------------------------------ the guaranteed stop
 * Once a rank has measured what it must, it sends its times to rank 0 without blocking
 * (MPI_Igather of the lengths, MPI_Igatherv of the text, on its own duplicate of
 * MPI_COMM_WORLD; no shared filesystem is assumed), and goes on.  The requests are tested
 * after each intercepted call; they progress inside the application's own MPI calls, so a
 * rank blocked in a receive still delivers.  When rank 0 has every rank's times it writes
 * them all, and, unless a clean stop came first, ends the job with
 * MPI_Abort(PAS2P_STOP_CODE): the launcher kills every rank, and `pas2p predict`
 * recognises the code, hides the launcher's abort banner and exits 0.  Nothing here ever
 * blocks the application: a code whose loop has no collective stops as soon as the
 * results are safe. */

static void nb_fail(sigrun_t *s, const char *what)
{
    char why[200];
    snprintf(why, sizeof why, "the guaranteed stop failed: %s", what);
    diverge(s, why);
}

/* this rank's times go to rank 0 (status: PAS2P_TIMES_STOPPED or _COMPLETED) */
static void nb_start_gather(sigrun_t *s, int status, const char *why)
{
    s->nb_buf = format_times(s, status, why, now_set_s(s));
    if (!s->nb_buf)
        nb_fail(s, "out of memory");
    s->nb_len = (int)strlen(s->nb_buf);
    if (s->host->rank == 0) {
        s->nb_lens = calloc((size_t)s->host->np, sizeof *s->nb_lens);
        s->nb_displs = calloc((size_t)s->host->np, sizeof *s->nb_displs);
        if (!s->nb_lens || !s->nb_displs)
            nb_fail(s, "out of memory");
    }
    if (PMPI_Igather(&s->nb_len, 1, MPI_INT, s->nb_lens, 1, MPI_INT, 0, s->nb, &s->nb_req[0]))
        nb_fail(s, "MPI_Igather");
    s->nb_req[1] = MPI_REQUEST_NULL;
    if (s->host->rank != 0 &&
        PMPI_Igatherv(s->nb_buf, s->nb_len, MPI_CHAR, NULL, NULL, NULL, MPI_CHAR, 0, s->nb,
                      &s->nb_req[1]))
        nb_fail(s, "MPI_Igatherv");
    s->nb_state = NB_GATHERING;
}

/* rank 0: every rank's times, written */
static void nb_write_all(sigrun_t *s)
{
    for (int r = 0; r < s->host->np; r++)
        write_times_file(s, r, s->nb_all + s->nb_displs[r], (size_t)s->nb_lens[r]);
}

/* one request: tested, or waited for (block) */
static int nb_done(MPI_Request *q, int block)
{
    int flag = 0;
    if (block)
        return PMPI_Wait(q, MPI_STATUS_IGNORE) == MPI_SUCCESS ? 1 : -1;
    return PMPI_Test(q, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS ? flag : -1;
}

/* Advances the gather as far as it can go (block: to its end; every rank must then be
 * doing the same).  Returns 1 once this rank's part is over (on rank 0: every times file
 * written), else 0. */
static int nb_progress(sigrun_t *s, int block)
{
    int d;
    if (s->nb_state == NB_GATHERING) {
        if (s->host->rank != 0) {
            for (int k = 0; k < 2; k++) {
                if ((d = nb_done(&s->nb_req[k], block)) < 0)
                    nb_fail(s, "MPI_Igatherv");
                if (!d)
                    return 0;
            }
            s->nb_state = NB_GATHERED;
            return 1;
        }
        if (s->nb_req[0] != MPI_REQUEST_NULL) { /* the lengths: then the texts */
            if ((d = nb_done(&s->nb_req[0], block)) < 0)
                nb_fail(s, "MPI_Igather");
            if (!d)
                return 0;
            size_t total = 0;
            for (int r = 0; r < s->host->np; r++) {
                s->nb_displs[r] = (int)total;
                total += (size_t)s->nb_lens[r];
            }
            if (total > (size_t)0x7fffffff || !(s->nb_all = malloc(total ? total : 1)))
                nb_fail(s, "out of memory");
            if (PMPI_Igatherv(s->nb_buf, s->nb_len, MPI_CHAR, s->nb_all, s->nb_lens,
                              s->nb_displs, MPI_CHAR, 0, s->nb, &s->nb_req[1]))
                nb_fail(s, "MPI_Igatherv");
        }
        if ((d = nb_done(&s->nb_req[1], block)) < 0)
            nb_fail(s, "MPI_Igatherv");
        if (!d)
            return 0;
        nb_write_all(s);
        s->nb_state = NB_GATHERED;
        return 1;
    }
    return s->nb_state == NB_GATHERED;
}

static void nb_free(sigrun_t *s)
{
    free(s->nb_buf);
    free(s->nb_all);
    free(s->nb_lens);
    free(s->nb_displs);
    if (s->nb != MPI_COMM_NULL)
        PMPI_Comm_free(&s->nb);
}

/* the early stop: every rank done and nothing in flight, agreed at a world-wide collective */
static void maybe_stop(sigrun_t *s)
{
    uint64_t t0 = s->host->now_ns(), sent, recvd, active;
    s->host->requests(&sent, &recvd, &active);
    uint64_t mine[4] = {s->nclosed == s->nmeasured, s->msg_sent + sent, s->msg_recvd + recvd,
                        active},
             all[4];
    PMPI_Allreduce(mine, all, 4, MPI_UINT64_T, MPI_SUM, s->comm);
    s->checks++;
    s->excl_ns += s->host->now_ns() - t0;
    s->checks_done += s->nclosed == s->nmeasured;
    if (all[0] != (uint64_t)s->host->np)
        return;
    if (all[1] != all[2] || all[3]) {
        s->checks_inflight++;
        return;
    }
    /* every rank is done, so every rank has said so: the times reach rank 0, which writes
     * them (the same gather as the guaranteed stop's, finished here by every rank) */
    nb_progress(s, 1);
    PMPI_Barrier(s->comm);
    PMPI_Comm_free(&s->comm);
    nb_free(s);
    PMPI_Finalize();
    fflush(NULL);
    _exit(0);
}

/* A steady time (predict's estimator): when the last awaited occurrence of phase ph has
 * closed, the stop also awaits the phase's next occurrence
 *  - while its timed values are not steady (pas2p_times_unsteady: their range is more than
 *    half their median, or, once extended, the last value moved the median by more than
 *    5 %) -- up to steady_cap values;
 *  - while their ratio to the base's same occurrences (pas2p_times_pair, the estimate
 *    pet.c makes) is suspect -- PAS2P_PAIR_SUSPECT x the base's or less or more, or paired
 *    with no typical base occurrence, or with fewer than 3 typical ones that are a minority
 *    of the pairs -- or, once so extended, the last value moved that ratio by more than
 *    5 %, up to every recorded occurrence;
 *  - while the ratios changed pace and too few have come since to estimate from the new
 *    one (PAS2P_PAIR_CHANGE_PENDING);
 * never past the steady state's point (PAS2P_STEADY_BUDGET of the calls, or the rare
 * phases' stop point if later), but up to twice that while the ratio is suspect or a change
 * pending (a target whose first occurrences ran 60x the
 * base's, then the base's pace, was predicted at 7.4x its run: tests/mpi/slowstart.c; a
 * 10 ms phase whose first base occurrences ran 0.1 ms, at 0.01-100x its run:
 * tests/mpi/paired_amplify.c): a target that is that much slower (or a base traced that
 * much slower) for good pays those occurrences for the check. */
#define PAS2P_PAIR_SUSPECT 4.0
static void steady(sigrun_t *s, uint32_t ph)
{
    double v[PAS2P_SIG_OCC], tv[PAS2P_SIG_OCC], bv[PAS2P_SIG_OCC];
    uint32_t n = 0, next = UINT32_MAX, prev = 0;
    int extended = 0, suspected = 0, pairable = 1;
    const pas2p_sig_phase_t *p = &s->me->phases[ph];
    int pooled = p->runs > 1 && p->runs_time_mean_s > 0;
    const double *ob = pooled ? p->occ_runs_time_s : p->occ_time_s;
    for (uint32_t i = 0; i < s->niv; i++) {
        const interval_t *y = &s->iv[i];
        if (y->phase != ph || y->timed != 1)
            continue;
        if (y->measured && y->t1 < 0)
            return; /* another awaited one is still open */
        if (y->t1 >= 0 && y->t0 >= 0 && n < PAS2P_SIG_OCC) {
            v[n] = y->t1 - y->t0;
            tv[n] = v[n] * 1e-9;
            bv[n] = y->occ < PAS2P_SIG_OCC ? ob[y->occ] : 0;
            /* (consecutive occurrences: those pet.c pairs) */
            pairable &= bv[n] > 0 && (!n || y->occ == prev + 1);
            prev = y->occ;
            n++;
        } else if (y->t1 < 0 && !y->measured && next == UINT32_MAX)
            next = i;
        extended |= y->measured && y->steady;
        suspected |= y->measured && y->steady == 2;
    }
    if (n < 3 || next == UINT32_MAX || n >= PAS2P_SIG_OCC)
        return;
    pas2p_pairing_t a, z;
    double typical = p->time_median_s > 0 ? p->time_median_s : p->time_mean_s;
    int paired = pairable && !pas2p_times_pair(tv, bv, n, typical, &a);
    int past = s->iv[next].oend > s->steady_at, want = 0;
    int extreme = paired && (a.ratio > PAS2P_PAIR_SUSPECT || a.ratio * PAS2P_PAIR_SUSPECT < 1);
    if (s->iv[next].oend > 2 * s->steady_at)
        return; /* (twice the budget at most) */
    if (paired && (a.how & PAS2P_PAIR_CHANGE_PENDING))
        want = 1; /* past the budget too */
    else if (extreme || (paired && (a.how & PAS2P_PAIR_UNTYPICAL)) ||
             (paired && (a.how & PAS2P_PAIR_SOME_TYPICAL) && a.used < PAS2P_PAIR_TAIL_MIN &&
              2 * a.used < a.valid))
        want = 1; /* (so, and while the typical pairs are fewer than 3 and a minority: a
                     light base occurrence that a hiccup made typical, paired alone, put
                     paired_amplify's PET at 2.06x its run; not for a few untypical pairs
                     among typical ones: under load those are the base's hiccups, and
                     awaiting more for them made steady loops wait) */
    else if (past)
        return;
    else if (paired && suspected)
        want = !pas2p_times_pair(tv, bv, n - 1, typical, &z) &&
               fabs(a.ratio - z.ratio) > 0.05 * a.ratio;
    else if (n < s->steady_cap) {
        want = pas2p_times_unsteady(v, n, extended);
        if (!want)
            return;
        s->iv[next].measured = 1;
        s->iv[next].steady = 1;
        s->nmeasured++;
        return;
    }
    if (!want)
        return;
    s->iv[next].measured = 1;
    s->iv[next].steady = 2;
    s->nmeasured++;
}

/* interval k's last event ended at boundary value v */
static void close_interval(sigrun_t *s, uint32_t k, double v)
{
    interval_t *x = &s->iv[k];
    x->t1 = v;
    if (x->measured && x->t0 >= 0)
        steady(s, x->phase);
    s->nclosed += (uint32_t)x->measured;
    if (x->measured && s->nclosed == s->nmeasured)
        s->last = k;
}

/* how a global signature numbers calls (pas2p_number_event's rules) */
static int number_rules(const sigrun_t *s)
{
    return (s->sig.runs ? PAS2P_NUMBER_RUNS : 0) | (s->sig.tests ? PAS2P_NUMBER_TESTS : 0) |
           (s->sig.probes ? PAS2P_NUMBER_PROBES : 0) |
           (s->sig.waits == 1 || s->sig.waits == 2 ? PAS2P_NUMBER_WAITS : 0) |
           (s->sig.waits > 1 ? PAS2P_NUMBER_TESTED : 0);
}

/* the sink's event: event i of this rank, as the trace numbers them */
static void sig_event_checked(void *state, const pas2p_event_t *e, uint64_t i)
{
    sigrun_t *s = state;
    if (s->to_end && s->nb_state != NB_IDLE) { /* (its times are sent: calls only counted) */
        if (!s->sig.global || pas2p_number_event(&s->last_call, e, number_rules(s)) == PAS2P_NUM_CALL)
            s->calls++;
        if (s->nb_state == NB_GATHERING)
            nb_progress(s, 0);
        return;
    }
    double v = (double)e->t_end - (double)s->excl_ns;
    count_messages(s, e);
    if (s->frozen)
        goto stop_points; /* (departs_when_done: nothing left to measure, calls not followed) */
    /* a global signature numbers calls as the analyzer does (pas2p_number_event): not the
     * failed polls (an Iprobe or Test* that found nothing: waiting, folded into the
     * computation before the next call), with completion runs, one number for a run of
     * Waitsome (Testsome) calls, however many the requests' arrival took, and with
     * completion tests, no number for any Test*, with probes, none for any Probe or
     * Iprobe, with completion waits, none for a Wait/Waitany/Waitall after a Test*: a run
     * that polls, tests, probes or waits more or less often than the base still follows
     * the signature */
    int kind = s->sig.global ? pas2p_number_event(&s->last_call, e, number_rules(s)) : PAS2P_NUM_CALL;
    if (kind == PAS2P_NUM_POLL)
        goto stop_points;
    if (kind == PAS2P_NUM_RUN) { /* the previous call goes on: its end is this one's */
        s->prev_v = v;
        goto stop_points;
    }
    if (s->run_close < s->niv) { /* the previous call's run is over: its occurrence too */
        close_interval(s, s->run_close, s->prev_v);
        s->run_close = UINT32_MAX;
    }
    i = s->sig.global ? s->lo++ : i;
    s->nevents = s->calls = i + 1;
    /* where this call is in the signature's terms, and where the next one will be */
    uint64_t at = i, next = i + 1;
    if (s->sig.anchored) {
        at = s->apos;
        next = anchor(s, e) ? ((at >> 32) + 1) << 32 : at + 1;
        s->apos = next;
    }
    while (s->cur < s->niv && s->iv[s->cur].end <= at)
        s->cur++;
    if (s->cur < s->niv && s->iv[s->cur].start <= at) {
        interval_t *x = &s->iv[s->cur];
        int ends = check_event(s, x, e, i, s->sig.anchored ? x->seen : at - x->start);
        x->seen++;
        if (at == x->start)
            x->t0 = at == 0 ? v : s->prev_v;
        if (next == x->end || ends) {
            if (s->sig.runs && (e->call == PAS2P_CALL_Waitsome || e->call == PAS2P_CALL_Testsome))
                s->run_close = s->cur; /* its run may go on: closed at the next call */
            else
                close_interval(s, s->cur, v);
        }
    }
    s->prev_v = v;
stop_points:
    if (e->call == PAS2P_CALL_Finalize)
        return; /* the run's end: sig_finish follows, no stop to make */
    if (s->nb_state == NB_IDLE && s->nclosed == s->nmeasured && s->nb != MPI_COMM_NULL) {
        uint64_t t0 = s->host->now_ns();
        nb_start_gather(s, PAS2P_TIMES_STOPPED, NULL);
        s->excl_ns += s->host->now_ns() - t0;
    }
    if (s->nb_state == NB_GATHERING) {
        uint64_t t0 = s->host->now_ns();
        int over = nb_progress(s, 0);
        s->excl_ns += s->host->now_ns() - t0;
        if (over && s->host->rank == 0 && !s->to_end) { /* the results are safe: end the job */
            fflush(NULL);
            PMPI_Abort(MPI_COMM_WORLD, PAS2P_STOP_CODE);
            _exit(PAS2P_STOP_CODE);
        }
    }
    if (!s->to_end && stop_point(s, e))
        maybe_stop(s);
}

/* The application's floating-point traps are off while this runtime works on an event
 * (MPQC enables them before MPI_Init: tracer/runtime.c; its medians and ratios are
 * doubles), its flags kept as they were.  A rank with no traps pays one read of the
 * control words. */
static void sig_event(void *state, const pas2p_event_t *e, uint64_t i)
{
    int traps = fegetexcept();
    if (!traps) {
        sig_event_checked(state, e, i);
        return;
    }
    fenv_t fe;
    feholdexcept(&fe);
    sig_event_checked(state, e, i);
    fesetenv(&fe);
}

/* predict --to-end, at MPI_Finalize (every rank is there): each rank's run time and calls
 * to rank 0, which writes DIR/to-end.times (pas2p_times.h) */
static void write_to_end(sigrun_t *s, double run_s)
{
    int np = s->host->np, me = s->host->rank;
    double *all = NULL;
    unsigned long long mine[2] = {s->calls, s->me_end}, *counts = NULL, *calls = NULL,
                       *traced = NULL;
    if (me == 0) {
        all = malloc(sizeof *all * (size_t)np);
        counts = malloc(sizeof *counts * 4 * (size_t)np);
        if (!all || !counts) { /* (a gather needs its buffer: nothing to write without) */
            fprintf(stderr, "pas2p: rank 0: out of memory\n");
            PMPI_Abort(MPI_COMM_WORLD, 3);
            _exit(3);
        }
        calls = counts + 2 * np;
        traced = counts + 3 * np;
    }
    PMPI_Gather(&run_s, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, s->comm);
    PMPI_Gather(mine, 2, MPI_UNSIGNED_LONG_LONG, counts, 2, MPI_UNSIGNED_LONG_LONG, 0, s->comm);
    char path[4400];
    if (me == 0) {
        for (int r = 0; r < np; r++) {
            calls[r] = counts[2 * r];
            traced[r] = counts[2 * r + 1];
        }
        if (pas2p_times_write_to_end(s->dir, np, all, calls, traced, path, sizeof path))
            fprintf(stderr, "pas2p: rank 0: cannot write %s: %s\n", path, strerror(errno));
    }
    free(all);
    free(counts);
}

/* the sink's finish: MPI_Finalize reached, no early stop */
static void sig_finish(void *state)
{
    sigrun_t *s = state;
    double run_s = now_set_s(s); /* (this rank's MPI_Init -> MPI_Finalize) */
    char why[600];
    if (s->end_share > 0 && s->last < s->niv &&
        s->me->phases[s->iv[s->last].phase].weight == 1 &&
        s->me->phases[s->iv[s->last].phase].nocc == 1) {
        const pas2p_sig_phase_t *p = &s->me->phases[s->iv[s->last].phase];
        snprintf(why, sizeof why, "ran to MPI_Finalize: its last phase %u, once, to the run's "
                 "end, holds %.0f %% of the rank's base time: timed, not estimated from the other "
                 "phases' ratio (as --measure-end; estimated only under half)", p->id,
                 100 * s->end_share);
    } else if (s->last < s->niv) { /* name the measurement that came too late for a stop */
        const interval_t *x = &s->iv[s->last];
        const pas2p_sig_phase_t *p = &s->me->phases[x->phase];
        snprintf(why, sizeof why, "ran to MPI_Finalize: measured by event %llu of %llu, at the end "
                 "of phase %u (weight %llu, occurrence at events %llu-%llu); after it %llu "
                 "MPI_COMM_WORLD blocking collectives, %llu of them with all ranks done but "
                 "messages in flight", (unsigned long long)x->end, (unsigned long long)s->nevents,
                 p->id, (unsigned long long)p->weight, (unsigned long long)x->start,
                 (unsigned long long)x->end - 1, (unsigned long long)s->checks_done,
                 (unsigned long long)s->checks_inflight);
    } else if (!s->nmeasured) {
        snprintf(why, sizeof why, "ran to MPI_Finalize: this rank has no relevant phase to "
                 "measure, and no other rank reached a safe point");
    } else {
        snprintf(why, sizeof why, "ran to MPI_Finalize: %u of %u measured occurrences seen in "
                 "%llu events (the run is shorter than the signature's)", s->nclosed,
                 s->nmeasured, (unsigned long long)s->nevents);
    }
    /* every rank is in MPI_Finalize: the gather completes (blocking) and rank 0 writes */
    if (s->nb_state == NB_IDLE && s->nb != MPI_COMM_NULL)
        nb_start_gather(s, PAS2P_TIMES_COMPLETED, why);
    nb_progress(s, 1);
    if (s->to_end && s->comm != MPI_COMM_NULL)
        write_to_end(s, run_s);
    if (s->comm != MPI_COMM_NULL)
        PMPI_Comm_free(&s->comm);
    nb_free(s);
    for (uint32_t k = 0; s->shapes && k < s->me->nphases; k++)
        free(s->shapes[k]);
    free(s->shapes);
    free(s->nshapes);
    pas2p_signature_free(&s->sig);
    free(s->iv);
    free(s);
}

/* the one exported symbol (sigrun.map): what libpas2p looks up after loading this library */
const pas2p_sink_t pas2p_sink = {.abi = PAS2P_SINK_ABI,
                                 .name = "signature",
                                 .start = sig_start,
                                 .event = sig_event,
                                 .finish = sig_finish};
