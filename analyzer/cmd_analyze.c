/* `pas2p analyze TRACE_DIR [options]`: phases, weights, relevant phases and coverage of
 * every rank, the representative rank (EPAS), the base-machine PET, and the signature.
 * With --mpi K it runs itself as K MPI processes (bin/pas2p-analyze, mpi_analyze.c), each
 * analysing its share of the rank files; pas2p_analyze_run is the one body of both. */
#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pas2p_analyzer.h"
#include "pas2p_launch.h"
#include "pas2p_signature.h"

static const char usage[] =
    "usage: pas2p analyze TRACE_DIR [-o SIGNATURE.xml] [--jobs N] [--relevance F]\n"
    "                     [--compute-similarity F] [--size-tolerance F]\n"
    "                     [--inline-events N|auto] [--skew F]\n"
    "                     [--phases global|local] [--logical global|local]\n"
    "                     [--strict] [--all-ranks]\n"
    "                     [--mpi K [-- LAUNCHER...]]\n"
    "\n"
    "Finds the phases (repeating slices of the run with their computation) and their\n"
    "weights, the relevant phases (weight x time >= F x AET, default 0.01) and their coverage,\n"
    "and picks the representative rank (EPAS: preliminary PET closest to AET).  Prints\n"
    "`events`, `relevant phases`, `coverage`, `AET`, `PET` (base machine: relevant phases\n"
    "plus the explicit remainder), `TFAT`, and the representative rank's phase table, and\n"
    "writes the signature (signature/FORMAT.md; default TRACE_DIR/signature.xml).\n"
    "\n"
    "  -o SIGNATURE.xml        where to write the signature\n"
    "  --jobs N                ranks analysed in parallel (default: number of cores)\n"
    "  --compute-similarity F  occurrences are the same phase when their computation is\n"
    "                          >= F alike (default 0.85 on instruction counts; 0.5 on time\n"
    "                          when the trace has no counters: scheduling noise)\n"
    "  --phases MODE           global (default): one phase table for all ranks, every\n"
    "                          occurrence a slice across all ranks that is communication-\n"
    "                          closed (no message, request or collective crosses it), cut\n"
    "                          where each rank's loops propose; local: each rank's own\n"
    "                          phases (EPAS), ids per rank, not closed\n"
    "  --size-tolerance F      a message size within F of a phase's first is the same event\n"
    "                          (default 0.9: sizes within 10x; orders of magnitude apart are\n"
    "                          different events; 0.05 was the per-rank default)\n"
    "  --inline-events N|auto an inner loop of at most N events in all is part of the\n"
    "                          enclosing loop's phase, not phases of its own.  auto (the\n"
    "                          default): 16, raised x4 (up to 4096) while a phase carrying\n"
    "                          >= 5 % of a rank's time, >= 3 % of its occurrences slower\n"
    "                          than 3x its median, has a mean more than --skew above its\n"
    "                          median (e.g. a pipeline's fill in the first iteration of a\n"
    "                          short inner loop), and the coarser phases are more even\n"
    "  --skew F                the auto granularity's limit on (mean - median) / mean\n"
    "                          (default 0.2)\n"
    "  --logical MODE          also compute the logical trace: global (PAS2P's Lamport rules\n"
    "                          across ranks) or local (each rank's order, EPAS); prints\n"
    "                          `logical time` (its length in ticks)\n"
    "  --strict                refuse a truncated rank file instead of analysing what is there\n"
    "  --all-ranks             print every rank's phase table\n"
    "  --mpi K                 run as K MPI processes (bin/pas2p-analyze), each analysing\n"
    "                          every K-th rank file with --jobs threads (default: the cores\n"
    "                          over the processes on its node), for traces larger than one\n"
    "                          node handles; process 0 gathers the phase tables and writes\n"
    "                          the signature (TRACE_DIR must be readable on every node).\n"
    "                          The launcher (default: mpirun) goes after --; `-np K` and the\n"
    "                          program are appended.  `mpirun -np K pas2p-analyze TRACE_DIR\n"
    "                          [options]` does the same by hand\n";

typedef struct {
    pas2p_rank_reader_t *r;
    int strict, truncated;
    int times_only;              /* pass B: the identity is known from pass A */
} src_t;

/* a reader's answer; without --strict a damaged or cut file ends the stream where the
 * complete part ends, and the rank says so (truncated) */
static int src_answer(src_t *s, int rc)
{
    if (rc < 0 && !s->strict) {
        s->truncated = 1;
        return 0;
    }
    return rc;
}

static int src_next(void *ctx, pas2p_event_view_t *out)
{
    src_t *s = ctx;
    return src_answer(s, s->times_only ? pas2p_rank_reader_next_times(s->r, out)
                                        : pas2p_rank_reader_next(s->r, out));
}

static int src_batch(void *ctx, pas2p_event_view_t *out, int max)
{
    src_t *s = ctx;
    return src_answer(s, pas2p_rank_reader_next_batch(s->r, out, max, s->times_only));
}

static int src_times(void *ctx, pas2p_event_times_t *out, int max)
{
    src_t *s = ctx;
    return src_answer(s, pas2p_rank_reader_next_times_batch(s->r, out, max));
}

static const char *src_error(void *ctx)
{
    return pas2p_rank_reader_error(((src_t *)ctx)->r);
}

typedef struct {
    const char *dir;
    const pas2p_manifest_t *m;
    const pas2p_analysis_opts_t *o;
    int strict, np;
    int first, stride;           /* this process analyses ranks first, first + stride, ... */
    int next;                    /* next of those to analyse (under lock) */
    pthread_mutex_t lock;
    pas2p_rank_phases_t *res;
    char (*warn)[512];
    int *failed;
} job_t;

static void analyse_rank(job_t *j, int rank)
{
    char path[PATH_MAX], err[sizeof j->res[0].error];
    pas2p_rank_path(j->dir, rank, path, sizeof path);
    pas2p_rank_reader_t *ra = pas2p_rank_reader_open(path, err, sizeof err);
    pas2p_rank_reader_t *rb = ra ? pas2p_rank_reader_open(path, err, sizeof err) : NULL;
    pas2p_rank_phases_t *out = &j->res[rank];
    if (!ra || !rb) {
        snprintf(out->error, sizeof out->error, "%s", err);
        j->failed[rank] = 1;
        pas2p_rank_reader_close(ra);
        return;
    }
    const pas2p_file_header_t *h = pas2p_rank_reader_header(ra);
    if (h->np != (uint32_t)j->np || h->rank != (uint32_t)rank) { /* files of another run */
        snprintf(out->error, sizeof out->error,
                 "rank-%05d.p2t: rank %u of a run of %u ranks, but the manifest says %d ranks",
                 rank, h->rank, h->np, j->np);
        j->failed[rank] = 1;
        pas2p_rank_reader_close(ra);
        pas2p_rank_reader_close(rb);
        return;
    }
    int instr = h->ncounters && !strcmp(h->counters[0], "PAPI_TOT_INS");
    src_t sa = {ra, j->strict, 0, 0}, sb = {rb, j->strict, 0, 1};
    pas2p_event_source_t a = {src_next, src_error, &sa, src_batch, NULL},
                         b = {src_next, src_error, &sb, src_batch, src_times};
    if (pas2p_find_phases(a, b, j->o, instr, out)) {
        j->failed[rank] = 1;
    } else if (sa.truncated) {
        snprintf(j->warn[rank], sizeof j->warn[rank], "%s; analysed the complete part",
                 pas2p_rank_reader_error(ra));
    } else if (pas2p_manifest_check_count(j->m, rank, out->events, err, sizeof err)) {
        /* cut exactly between two records: only the manifest knows */
        if (j->strict) {
            snprintf(out->error, sizeof out->error, "%s", err);
            j->failed[rank] = 1;
        } else {
            snprintf(j->warn[rank], sizeof j->warn[rank], "%.400s; analysed the complete part", err);
        }
    }
    out->rank = rank;
    pas2p_rank_reader_close(ra);
    pas2p_rank_reader_close(rb);
}

static void *worker(void *arg)
{
    job_t *j = arg;
    for (;;) {
        pthread_mutex_lock(&j->lock);
        int rank = j->first + j->stride * j->next++;
        pthread_mutex_unlock(&j->lock);
        if (rank >= j->np)
            return NULL;
        analyse_rank(j, rank);
    }
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int parse_fraction(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !(v >= 0 && v <= 1))
        return -1;
    *out = v;
    return 0;
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ull;
    return x ^ (x >> 29);
}

/* order-independent digest of (call sequence, weight) over a rank's phases */
static uint64_t structure_hash(const pas2p_rank_phases_t *r)
{
    uint64_t sum = 0;
    for (uint32_t i = 0; i < r->nphases; i++) {
        uint64_t h = 0x1234567;
        for (uint32_t k = 0; k < r->phases[i].nsym; k++)
            h = mix(h ^ r->symbols[r->phases[i].syms[k]].call);
        sum += h * r->phases[i].weight;
    }
    return sum;
}

/* length of the logical trace: one more pass over every rank file */
static int logical_time(const char *dir, int np, int global, int strict, uint64_t *ticks,
                        char *err, size_t errlen)
{
    pas2p_rank_reader_t **rd = calloc((size_t)np, sizeof *rd);
    src_t *ss = calloc((size_t)np, sizeof *ss);
    pas2p_event_source_t *src = calloc((size_t)np, sizeof *src);
    int rc = -1;
    if (!rd || !ss || !src) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    for (int r = 0; r < np; r++) {
        char path[PATH_MAX];
        pas2p_rank_path(dir, r, path, sizeof path);
        rd[r] = pas2p_rank_reader_open(path, err, errlen);
        if (!rd[r])
            goto out;
        if (global && pas2p_rank_reader_header(rd[r])->thread_level == 3) {
            snprintf(err, errlen, "rank-%05d.p2t: traced under MPI_THREAD_MULTIPLE; the global "
                     "logical trace needs each thread's own order, which this version does not "
                     "build (use --logical local)", r);
            goto out;
        }
        ss[r] = (src_t){rd[r], strict, 0, 0};
        src[r] = (pas2p_event_source_t){src_next, src_error, &ss[r], NULL, NULL};
    }
    rc = pas2p_logical_clock(src, np, global, NULL, NULL, ticks, err, errlen);
out:
    for (int r = 0; rd && r < np; r++)
        pas2p_rank_reader_close(rd[r]);
    free(rd);
    free(ss);
    free(src);
    return rc;
}

/* the global phases: one more pass over every rank file, all ranks at once (global.c) */
static int global_pass(const char *dir, int np, int strict, int cut, const pas2p_analysis_opts_t *o,
                       pas2p_rank_phases_t *res, pas2p_global_info_t *info, char *err,
                       size_t errlen)
{
    pas2p_rank_reader_t **rd = calloc((size_t)np, sizeof *rd);
    src_t *ss = calloc((size_t)np, sizeof *ss);
    pas2p_event_source_t *src = calloc((size_t)np, sizeof *src);
    int rc = -1, instr = 0;
    if (!rd || !ss || !src) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    for (int r = 0; r < np; r++) {
        char path[PATH_MAX];
        pas2p_rank_path(dir, r, path, sizeof path);
        rd[r] = pas2p_rank_reader_open(path, err, errlen);
        if (!rd[r])
            goto out;
        const pas2p_file_header_t *h = pas2p_rank_reader_header(rd[r]);
        if (h->thread_level == 3) { /* not an error: the caller keeps per-rank phases */
            snprintf(err, errlen, "rank-%05d.p2t: traced under MPI_THREAD_MULTIPLE, whose threads' "
                     "events interleave: phases per rank (local), not global", r);
            rc = 1;
            goto out;
        }
        if (!r)
            instr = h->ncounters && !strcmp(h->counters[0], "PAPI_TOT_INS");
        ss[r] = (src_t){rd[r], strict, 0, 0};
        src[r] = (pas2p_event_source_t){src_next, src_error, &ss[r], NULL, NULL};
    }
    rc = pas2p_global_phases(src, np, o, instr, cut, res, info, err, errlen);
out:
    for (int r = 0; rd && r < np; r++)
        pas2p_rank_reader_close(rd[r]);
    free(rd);
    free(ss);
    free(src);
    return rc;
}

/* the signature of the run: every rank's phases, relevance judged against AET */
static int build_signature(const job_t *j, const pas2p_manifest_t *m, const pas2p_analysis_opts_t *o,
                           int rep, int spmd, pas2p_signature_t *s)
{
    memset(s, 0, sizeof *s);
    s->version = PAS2P_SIGNATURE_VERSION;
    snprintf(s->command, sizeof s->command, "%s", m->command);
    snprintf(s->counters, sizeof s->counters, "%s", m->counters[0] ? m->counters : "none");
    snprintf(s->tracer, sizeof s->tracer, "%s", m->tracer);
    size_t len = 0;
    for (int r = 0; r < m->np && len < sizeof s->hosts; r++)
        len += (size_t)snprintf(s->hosts + len, sizeof s->hosts - len, "%s%s", r ? "," : "", m->hosts[r]);
    s->np = (uint32_t)m->np;
    s->aet_s = m->aet_s;
    s->relevance = o->relevance;
    s->compute_similarity = o->compute_similarity;
    s->compute_similarity_time = o->compute_similarity_time;
    s->size_tolerance = o->size_tolerance;
    s->inline_events = o->inline_events;
    s->representative = (uint32_t)rep;
    s->spmd = spmd;
    s->global = o->global;
    s->characteristic_comm = UINT32_MAX;
    s->nranks = (uint32_t)m->np;
    s->ranks = calloc(s->nranks, sizeof *s->ranks);
    if (!s->ranks)
        return -1;
    /* global phases: a phase is relevant on every rank when it is on any (its id is the same
     * slice of the program everywhere, and it is replayed and timed as one) */
    uint32_t maxid = 0;
    for (int r = 0; o->global && r < m->np; r++)
        for (uint32_t i = 0; i < j->res[r].nphases; i++)
            if (j->res[r].phases[i].id > maxid)
                maxid = j->res[r].phases[i].id;
    unsigned char *grel = calloc(maxid + 1, 1);
    if (!grel)
        return -1;
    for (int r = 0; o->global && r < m->np; r++)
        for (uint32_t i = 0; i < j->res[r].nphases; i++) {
            const pas2p_phase_t *p = &j->res[r].phases[i];
            if ((double)p->weight * p->time_mean_s >= o->relevance * m->aet_s)
                grel[p->id] = 1;
        }
    for (int r = 0; r < m->np; r++) {
        const pas2p_rank_phases_t *R = &j->res[r];
        pas2p_sig_rank_t *S = &s->ranks[r];
        S->rank = (uint32_t)r;
        S->elapsed_s = R->elapsed_s;
        S->events = R->events;
        S->kernel_rate = m->kernel_rate ? m->kernel_rate[r] : 0;
        s->events += R->events;
        S->nphases = R->nphases;
        S->phases = calloc(R->nphases ? R->nphases : 1, sizeof *S->phases);
        if (!S->phases)
            return -1;
        for (uint32_t i = 0; i < R->nphases; i++) {
            const pas2p_phase_t *p = &R->phases[i];
            pas2p_sig_phase_t *q = &S->phases[i];
            double wt = (double)p->weight * p->time_mean_s;
            q->id = p->id;
            q->weight = p->weight;
            q->relevant = wt >= o->relevance * m->aet_s || (o->global && grel[p->id]);
            q->time_mean_s = p->time_mean_s;
            q->time_median_s = p->time_median_s;
            q->time_min_s = p->time_min_s;
            q->time_max_s = p->time_max_s;
            q->time_sd_s = p->time_sd_s;
            q->compute_mean_s = p->compute_mean_s;
            q->instructions_mean = p->instructions_mean;
            q->nocc = p->nfirst < PAS2P_SIG_OCC ? p->nfirst : PAS2P_SIG_OCC;
            memcpy(q->occ_start, p->first_start, q->nocc * sizeof *q->occ_start);
            memcpy(q->occ_end, p->first_end, q->nocc * sizeof *q->occ_end);
            memcpy(q->occ_time_s, p->first_time_s, q->nocc * sizeof *q->occ_time_s);
            q->nevents = p->nsym;
            q->events = calloc(p->nsym ? p->nsym : 1, sizeof *q->events);
            if (!q->events)
                return -1;
            for (uint32_t k = 0; k < p->nsym; k++) {
                const pas2p_symbol_t *y = &R->symbols[p->syms[k]];
                q->events[k] = (pas2p_sig_event_t){
                    .call = y->call, .peer = y->peer, .tag = y->tag, .peer2 = y->peer2,
                    .tag2 = y->tag2, .comm = y->comm, .aux = y->aux, .bytes = y->bytes,
                    .rbytes = y->rbytes, .compute_s = p->pos_compute_s[k],
                    .instructions = p->pos_instructions[k]};
                if (p->pos_bytes) { /* global phases: sizes are the phase's mean */
                    q->events[k].bytes = (uint64_t)llround(p->pos_bytes[k]);
                    q->events[k].rbytes = (uint64_t)llround(p->pos_rbytes[k]);
                    q->events[k].size_min = p->pos_size_min[k];
                    q->events[k].size_max = p->pos_size_max[k];
                }
            }
            if (r == rep) {
                if (q->relevant)
                    s->relevant_s += wt;
                else
                    s->remainder_s += wt;
            }
        }
        /* communicators: each once, as its first member recorded it */
        for (uint32_t c = 0; c < R->ncomms; c++) {
            uint32_t k = 0;
            while (k < s->ncomms && s->comms[k].id != R->comms[c].id)
                k++;
            if (k < s->ncomms)
                continue;
            pas2p_sig_comm_t *nc = realloc(s->comms, (s->ncomms + 1) * sizeof *nc);
            if (!nc)
                return -1;
            s->comms = nc;
            const pas2p_comm_info_t *ci = &R->comms[c];
            pas2p_sig_comm_t *d = &s->comms[s->ncomms++];
            *d = (pas2p_sig_comm_t){.id = ci->id, .parent = ci->parent, .call = ci->call,
                                    .size = ci->size, .ndims = ci->ndims};
            d->members = malloc(sizeof(int32_t) * (ci->size ? ci->size : 1));
            d->dims = ci->ndims ? malloc(sizeof(int32_t) * ci->ndims) : NULL;
            d->periods = ci->ndims ? malloc(sizeof(int32_t) * ci->ndims) : NULL;
            if (!d->members || (ci->ndims && (!d->dims || !d->periods)))
                return -1;
            memcpy(d->members, ci->members, sizeof(int32_t) * ci->size);
            if (ci->ndims) {
                memcpy(d->dims, ci->dims, sizeof(int32_t) * ci->ndims);
                memcpy(d->periods, ci->periods, sizeof(int32_t) * ci->ndims);
            }
        }
    }
    free(grel);
    s->pet_s = s->relevant_s + s->remainder_s;
    s->coverage = m->aet_s > 0 ? s->relevant_s / m->aet_s : 0;
    return 0;
}

/* 1 if this or any other process failed; the lowest process that failed prints its error
 * (*speak), so that a distributed run says it once */
static int any_failed(const pas2p_analyze_dist_t *d, int failed, int *speak)
{
    if (!d) {
        *speak = failed;
        return failed;
    }
    double v = d->max(d->ctx, failed ? (double)(d->size - d->self) : 0);
    *speak = failed && (int)v == d->size - d->self;
    return v > 0;
}

/* the maximum of v over the processes of a distributed run */
static double all_max(const pas2p_analyze_dist_t *d, double v)
{
    return d ? d->max(d->ctx, v) : v;
}

/* analyses this process's ranks with `jobs` threads; 0, or 1 after the first failed
 * rank's error was printed (here or by another process) */
static int run_ranks(job_t *j, long jobs, const pas2p_analyze_dist_t *d)
{
    j->next = 0;
    pthread_t *th = calloc((size_t)jobs, sizeof *th);
    long started = 0;
    for (; th && started < jobs; started++)
        if (pthread_create(&th[started], NULL, worker, j))
            break;
    if (!started)
        worker(j);
    for (long k = 0; k < started; k++)
        pthread_join(th[k], NULL);
    free(th);
    int bad = 0, speak;
    while (bad < j->np && !j->failed[bad])
        bad++;
    if (!any_failed(d, bad < j->np, &speak))
        return 0;
    if (speak)
        fprintf(stderr, "pas2p analyze: %s\n", j->res[bad].error);
    return 1;
}

/* the largest (mean - median) / mean over the phases that repeat (weight >= 8), carry
 * >= 5 % of their rank's time and have >= 3 % of their occurrences slower than 3 x the
 * median: slow occurrences that recur (a pipeline's fill at the start of each inner loop),
 * which the few occurrences a prediction times do not represent.  Rarer outliers are
 * noise (a preempted occurrence of a ping-pong): coarser phases would not remove them. */
static double phase_skew(const job_t *j)
{
    double worst = 0;
    for (int r = 0; r < j->np; r++) {
        const pas2p_rank_phases_t *R = &j->res[r];
        for (uint32_t i = 0; i < R->nphases; i++) {
            const pas2p_phase_t *p = &R->phases[i];
            if (p->weight < 8 || p->time_mean_s <= 0 || p->time_slow_share < 0.03 ||
                (double)p->weight * p->time_mean_s < 0.05 * R->elapsed_s)
                continue;
            double k = (p->time_mean_s - p->time_median_s) / p->time_mean_s;
            if (k > worst)
                worst = k;
        }
    }
    return worst;
}

/* the smallest weight of a relevant phase that repeats: below 4 a prediction cannot skip a
 * warm-up and time three occurrences */
static uint64_t min_loop_weight(const job_t *j, double relevant_s)
{
    uint64_t w = UINT64_MAX;
    for (int r = 0; r < j->np; r++)
        for (uint32_t i = 0; i < j->res[r].nphases; i++) {
            const pas2p_phase_t *p = &j->res[r].phases[i];
            if (p->weight > 1 && (double)p->weight * p->time_mean_s >= relevant_s && p->weight < w)
                w = p->weight;
        }
    return w;
}

static void complain(int quiet, const char *fmt, ...)
{
    if (quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("pas2p analyze: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static void job_free(job_t *j)
{
    if (j->res)
        for (int r = 0; r < j->np; r++)
            pas2p_rank_phases_free(&j->res[r]);
    free(j->res);
    free(j->warn);
    free(j->failed);
    j->res = NULL;
    j->warn = NULL;
    j->failed = NULL;
}

int pas2p_analyze_run(int argc, char **argv, const pas2p_analyze_dist_t *dist)
{
    int quiet = dist && dist->self; /* option errors: process 0 says them */
    const char *dir = NULL;
    pas2p_analysis_opts_t o;
    pas2p_analysis_defaults(&o);
    long jobs = 0;
    int strict = 0, all = 0;
    const char *out_path = NULL;
    int logical = -1; /* -1 none, 0 local, 1 global */
    int auto_inline = 1, size_given = 0;
    double max_skew = 0.2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            if (!quiet)
                fputs(usage, stdout);
            return 0;
        } else if (!strcmp(a, "--jobs") && i + 1 < argc) {
            char *end;
            jobs = strtol(argv[++i], &end, 10);
            if (*end || jobs < 1 || jobs > 1024) {
                complain(quiet, "--jobs needs a number from 1 to 1024");
                return 2;
            }
        } else if (!strcmp(a, "--relevance") && i + 1 < argc) {
            if (parse_fraction(argv[++i], &o.relevance)) {
                complain(quiet, "--relevance needs a fraction in [0, 1]");
                return 2;
            }
        } else if (!strcmp(a, "--compute-similarity") && i + 1 < argc) {
            if (parse_fraction(argv[++i], &o.compute_similarity)) {
                complain(quiet, "--compute-similarity needs a fraction in [0, 1]");
                return 2;
            }
            o.compute_similarity_time = o.compute_similarity;
        } else if (!strcmp(a, "--size-tolerance") && i + 1 < argc) {
            if (parse_fraction(argv[++i], &o.size_tolerance)) {
                complain(quiet, "--size-tolerance needs a fraction in [0, 1]");
                return 2;
            }
            size_given = 1;
        } else if (!strcmp(a, "--phases") && i + 1 < argc) {
            const char *mode = argv[++i];
            if (!strcmp(mode, "global"))
                o.global = 1;
            else if (!strcmp(mode, "local"))
                o.global = 0;
            else {
                complain(quiet, "--phases is 'global' or 'local', not '%s'", mode);
                return 2;
            }
        } else if (!strcmp(a, "--inline-events") && i + 1 < argc) {
            char *end;
            const char *v = argv[++i];
            long n = strtol(v, &end, 10);
            if (!strcmp(v, "auto")) {
                auto_inline = 1;
            } else if (*v && !*end && n >= 0 && n <= 1000000) {
                o.inline_events = (uint32_t)n;
                auto_inline = 0;
            } else {
                complain(quiet, "--inline-events needs 'auto' or a number from 0 to 1000000");
                return 2;
            }
        } else if (!strcmp(a, "--skew") && i + 1 < argc) {
            if (parse_fraction(argv[++i], &max_skew)) {
                complain(quiet, "--skew needs a fraction in [0, 1]");
                return 2;
            }
        } else if (!strcmp(a, "--logical") && i + 1 < argc) {
            const char *mode = argv[++i];
            if (!strcmp(mode, "global"))
                logical = 1;
            else if (!strcmp(mode, "local"))
                logical = 0;
            else {
                complain(quiet, "--logical is 'global' or 'local', not '%s'", mode);
                return 2;
            }
        } else if (!strcmp(a, "--strict")) {
            strict = 1;
        } else if (!strcmp(a, "--all-ranks")) {
            all = 1;
        } else if (!strcmp(a, "-o") && i + 1 < argc) {
            out_path = argv[++i];
        } else if (a[0] == '-' || dir) {
            complain(quiet, "unexpected '%s' (see --help)", a);
            return 2;
        } else {
            dir = a;
        }
    }
    if (!dir) {
        if (!quiet)
            fputs(usage, stderr);
        return 2;
    }
    if (!o.global && !size_given)
        o.size_tolerance = 0.05; /* the per-rank analysis keeps its own default */
    double t0 = now_s();
    pas2p_manifest_t m;
    char err[1024];
    int speak, bad = pas2p_manifest_read(dir, &m, err, sizeof err) != 0;
    if (any_failed(dist, bad, &speak)) {
        if (speak)
            fprintf(stderr, "pas2p analyze: %s\n", err);
        if (!bad)
            pas2p_manifest_free(&m);
        return 1;
    }
    int np = m.np;
    job_t j = {.dir = dir, .m = &m, .o = &o, .strict = strict, .np = np,
               .first = dist ? dist->self : 0, .stride = dist ? dist->size : 1,
               .lock = PTHREAD_MUTEX_INITIALIZER};
    j.res = calloc((size_t)np, sizeof *j.res);
    j.warn = calloc((size_t)np, sizeof *j.warn);
    j.failed = calloc((size_t)np, sizeof *j.failed);
    bad = !j.res || !j.warn || !j.failed;
    if (any_failed(dist, bad, &speak)) {
        if (speak)
            fprintf(stderr, "pas2p analyze: out of memory\n");
        job_free(&j);
        pas2p_manifest_free(&m);
        return 1;
    }
    long mine = j.first < np ? (np - j.first + j.stride - 1) / j.stride : 0;
    if (!jobs)
        jobs = dist && dist->jobs > 0 ? dist->jobs
               : sysconf(_SC_NPROCESSORS_ONLN) > 0 ? sysconf(_SC_NPROCESSORS_ONLN) : 1;
    if (jobs > mine)
        jobs = mine > 0 ? mine : 1;
    int rc = run_ranks(&j, jobs, dist);
    /* auto granularity: coarser phases while a heavy phase is skewed and coarsening helps
     * (decided over all ranks: every process takes the same branch) */
    double skew = rc ? 0 : all_max(dist, phase_skew(&j)), skew0 = -1;
    while (!rc && auto_inline && skew > max_skew && o.inline_events < 4096) {
        pas2p_analysis_opts_t o2 = o;
        o2.inline_events = o.inline_events * 4;
        job_t j2 = j;
        pthread_mutex_init(&j2.lock, NULL); /* its own, not a copy of j's */
        j2.o = &o2;
        j2.res = calloc((size_t)np, sizeof *j2.res);
        j2.warn = calloc((size_t)np, sizeof *j2.warn);
        j2.failed = calloc((size_t)np, sizeof *j2.failed);
        int better = 0;
        double skew2 = skew;
        bad = !j2.res || !j2.warn || !j2.failed;
        if (!any_failed(dist, bad, &speak) && !run_ranks(&j2, jobs, dist)) {
            skew2 = all_max(dist, phase_skew(&j2));
            /* the smallest weight of a relevant loop phase, over all processes */
            double w = -all_max(dist, -(double)min_loop_weight(&j2, o.relevance * m.aet_s));
            better = skew2 < skew && w >= 4;
        }
        pthread_mutex_destroy(&j2.lock);
        job_free(better ? &j : &j2);
        if (!better)
            break;
        if (skew0 < 0)
            skew0 = skew;
        o = o2;
        j.res = j2.res;
        j.warn = j2.warn;
        j.failed = j2.failed;
        skew = skew2;
    }
    /* a distributed run: the phase tables to process 0, which goes on alone */
    if (!rc && dist) {
        err[0] = 0;
        bad = dist->gather(dist->ctx, j.res, j.warn, np, err, sizeof err) != 0;
        if (any_failed(dist, bad, &speak)) {
            if (speak)
                fprintf(stderr, "pas2p analyze: %s\n", err);
            rc = 1;
        }
    }
    if (dist && dist->self) {
        job_free(&j);
        pas2p_manifest_free(&m);
        return rc;
    }
    pas2p_global_info_t ginfo = {0};
    char local_why[1024] = "";
    if (!rc && o.global) {
        int cut = 0;
        for (int r = 0; r < np; r++)
            cut |= j.warn[r][0] != 0;
        int g = global_pass(dir, np, strict, cut, &o, j.res, &ginfo, err, sizeof err);
        if (g > 0) {
            snprintf(local_why, sizeof local_why, "%s", err);
            o.global = 0;
        } else if (g < 0) {
            fprintf(stderr, "pas2p analyze: %s\n", err);
            rc = 1;
        } else if (ginfo.unclosed_end) {
            fprintf(stderr, "pas2p analyze: the trace is cut: its last occurrence is not "
                    "communication-closed\n");
        }
    }
    uint64_t events = 0;
    int rep = 0;
    if (!rc) {
        for (int r = 0; r < np; r++) {
            if (j.warn[r][0])
                fprintf(stderr, "pas2p analyze: %s\n", j.warn[r]);
            events += j.res[r].events;
            /* EPAS: the rank whose preliminary PET is closest to AET represents the run */
            if (fabs(j.res[r].elapsed_s - m.aet_s) < fabs(j.res[rep].elapsed_s - m.aet_s))
                rep = r;
        }
        const pas2p_rank_phases_t *R = &j.res[rep];
        /* structure: the same calls in the same loops on every rank?  (peers differ by
         * rank, computation variants by noise: compare call sequences x weights) */
        int differ = 0;
        uint64_t ref = structure_hash(R);
        for (int r = 0; r < np && !differ; r++)
            differ = structure_hash(&j.res[r]) != ref;
        pas2p_signature_t sig;
        char sigpath[PATH_MAX];
        if (out_path)
            snprintf(sigpath, sizeof sigpath, "%s", out_path);
        else
            snprintf(sigpath, sizeof sigpath, "%s/signature.xml", dir);
        if (build_signature(&j, &m, &o, rep, !differ, &sig)) {
            fprintf(stderr, "pas2p analyze: out of memory\n");
            rc = 1;
        } else {
            if (o.global)
                sig.characteristic_comm = ginfo.characteristic_comm;
            uint32_t nrel = 0;
            if (o.global) { /* relevant global phases, on any rank */
                uint32_t maxid = 0;
                for (uint32_t r = 0; r < sig.nranks; r++)
                    for (uint32_t i = 0; i < sig.ranks[r].nphases; i++)
                        if (sig.ranks[r].phases[i].relevant && sig.ranks[r].phases[i].id > maxid)
                            maxid = sig.ranks[r].phases[i].id;
                for (uint32_t id = 1; id <= maxid; id++) {
                    int rel = 0;
                    for (uint32_t r = 0; r < sig.nranks && !rel; r++)
                        for (uint32_t i = 0; i < sig.ranks[r].nphases && !rel; i++)
                            rel = sig.ranks[r].phases[i].id == id && sig.ranks[r].phases[i].relevant;
                    nrel += rel;
                }
            } else {
                for (uint32_t i = 0; i < sig.ranks[rep].nphases; i++)
                    nrel += sig.ranks[rep].phases[i].relevant;
            }
            printf("trace = %s\nnp = %d\n", dir, np);
            printf("events = %llu\n", (unsigned long long)events);
            printf("representative rank = %d\n", rep);
            if (o.global) {
                printf("phases = %u\n", ginfo.phases);
                printf("phase table = global (one for all ranks, every occurrence "
                       "communication-closed)\n");
                printf("occurrences = %llu (slices across all ranks, each communication-closed; "
                       "the largest %llu events)\n", (unsigned long long)ginfo.occurrences,
                       (unsigned long long)ginfo.largest_occurrence);
                if (ginfo.characteristic_comm != UINT32_MAX)
                    printf("characteristic communicator = %u%s\n", ginfo.characteristic_comm,
                           ginfo.characteristic_comm ? "" : " (MPI_COMM_WORLD)");
                else
                    printf("characteristic communicator = none (no collective on all ranks in "
                           "the phases: point-to-point only)\n");
            } else {
                printf("phases = %u\n", R->nphases);
                printf("phase table = per rank (%s)\n",
                       local_why[0] ? local_why : "local: the representative rank's");
            }
            printf("relevant phases = %u\n", nrel);
            printf("inline events = %u\n", o.inline_events);
            if (skew0 >= 0)
                printf("granularity = coarser: a heavy phase's mean was %.0f %% above its median "
                       "(a pipeline fill?), now %.0f %%\n", 100 * skew0, 100 * skew);
            printf("coverage = %.2f %%\n", 100 * sig.coverage);
            printf("remainder = %.6f s\n", sig.remainder_s);
            printf("AET = %.6f s\n", m.aet_s);
            printf("PET = %.6f s\n", sig.pet_s);
            printf("PETE = %+.2f %%\n", m.aet_s > 0 ? 100 * (sig.pet_s - m.aet_s) / m.aet_s : 0);
            printf("structure = %s\n", differ ? "ranks differ (per-rank phase tables below with --all-ranks)"
                                              : "identical on all ranks (SPMD)");
            if (logical >= 0) {
                uint64_t ticks;
                if (logical_time(dir, np, logical, strict, &ticks, err, sizeof err)) {
                    fprintf(stderr, "pas2p analyze: %s\n", err);
                    rc = 1;
                } else {
                    printf("logical time = %llu ticks (%s)\n", (unsigned long long)ticks,
                           logical ? "global" : "local");
                }
            }
            if (pas2p_signature_write(&sig, sigpath, err, sizeof err)) {
                fprintf(stderr, "pas2p analyze: %s\n", err);
                rc = 1;
            } else {
                printf("signature = %s\n", sigpath);
            }
            printf("TFAT = %.6f s\n", now_s() - t0);
            if (o.global)
                pas2p_signature_print_global(&sig, stdout);
            for (int r = 0; r < np; r++)
                if (all || r == rep)
                    pas2p_signature_print_table(&sig, (uint32_t)r, stdout);
        }
        pas2p_signature_free(&sig);
    }
    job_free(&j);
    pas2p_manifest_free(&m);
    return rc;
}

/* `pas2p analyze`: in this process, or with --mpi K as K processes of bin/pas2p-analyze
 * under a launcher (default mpirun): LAUNCHER... -np K pas2p-analyze OPTIONS... */
int pas2p_cmd_analyze(int argc, char **argv)
{
    int mpi = 0, dash = argc;
    long k = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--")) {
            dash = i;
            break;
        }
        if (!strcmp(argv[i], "--mpi")) {
            char *end;
            k = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : 0;
            if (i + 1 >= argc || *end || k < 1 || k > 100000) {
                fprintf(stderr, "pas2p analyze: --mpi needs a number of processes from 1 to 100000\n");
                return 2;
            }
            mpi = i;
            i++;
        }
    }
    if (!mpi) {
        if (dash < argc) {
            fprintf(stderr, "pas2p analyze: a launcher after -- needs --mpi K (see --help)\n");
            return 2;
        }
        return pas2p_analyze_run(argc, argv, NULL);
    }
    char prog[PATH_MAX];
    if (pas2p_find_beside("PAS2P_ANALYZE_MPI", "pas2p-analyze", prog, sizeof prog) ||
        access(prog, X_OK)) {
        fprintf(stderr, "pas2p analyze: the MPI analyzer %s is missing (build pas2p with MPI; or "
                "set PAS2P_ANALYZE_MPI)\n", prog);
        return 1;
    }
    /* pas2p-analyze and this command's options but --mpi K, under the launcher */
    char **args = calloc((size_t)argc + 1, sizeof *args), **cmd = NULL;
    int na = 0, n = 0;
    if (args) {
        args[na++] = prog;
        for (int i = 1; i < dash; i++)
            if (i != mpi && i != mpi + 1)
                args[na++] = argv[i];
        cmd = pas2p_mpi_argv(argv + dash + 1, argc - dash - 1, k, args, na, &n);
    }
    free(args);
    if (!cmd) {
        fprintf(stderr, "pas2p analyze: out of memory\n");
        return 1;
    }
    /* process 0's exit status comes back through a file (mpi_analyze.c) */
    char tmpl[] = "/tmp/pas2p-analyze-XXXXXX", status[64];
    if (!mkdtemp(tmpl)) {
        fprintf(stderr, "pas2p analyze: cannot make a directory in /tmp: %s\n", strerror(errno));
        free(cmd);
        return 1;
    }
    snprintf(status, sizeof status, "%s/status", tmpl);
    setenv("PAS2P_ANALYZE_STATUS", status, 1);
    static const char *const vars[] = {"PAS2P_ANALYZE_STATUS"};
    int rc = pas2p_launch("pas2p analyze", NULL, cmd, n, vars, 1);
    unsetenv("PAS2P_ANALYZE_STATUS");
    free(cmd);
    FILE *f = fopen(status, "r");
    int code;
    if (f && fscanf(f, "%d", &code) == 1 && !rc)
        rc = code;
    if (f)
        fclose(f);
    unlink(status);
    rmdir(tmpl);
    return rc;
}
