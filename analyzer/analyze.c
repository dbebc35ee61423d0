/* The analysis engine (pas2p_analyzer.h: pas2p_analyze): from a trace directory to the
 * signature.  Every rank's phases (phases.c, in parallel threads; in the MPI mode spread
 * over processes, mpi_analyze.c), the automatic granularity, the global phases (global.c),
 * the representative rank (EPAS), the signature and, on request, the logical trace.  No
 * command line and no printing here: `pas2p analyze` (cmd_analyze.c) and bin/pas2p-analyze
 * fill the options, call pas2p_analyze and print what it returns. */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pas2p_analyzer.h"
#include "pas2p_launch.h"
#include "pas2p_signature.h"

void pas2p_analyze_defaults(pas2p_analyze_opts_t *o)
{
    memset(o, 0, sizeof *o);
    pas2p_analysis_defaults(&o->analysis);
    o->inline_auto = 1;
    o->skew = 0.2;
    o->logical = -1;
}

void pas2p_analyze_result_free(pas2p_analyze_result_t *r)
{
    free(r->warnings);
    r->warnings = NULL;
    pas2p_signature_free(&r->sig);
    r->done = 0;
}

/* ------------------------------------------------------------------ event sources */
typedef struct {
    pas2p_rank_reader_t *r;
    int strict, truncated;
    int times_only;              /* pass B: the identity is known from pass A */
    int failed;                  /* the reader refused the file (--strict): a bad input */
} src_t;

/* a reader's answer; without --strict a damaged or cut file ends the stream where the
 * complete part ends, and the rank says so (truncated) */
static int src_answer(src_t *s, int rc)
{
    if (rc < 0 && !s->strict) {
        s->truncated = 1;
        return 0;
    }
    if (rc < 0)
        s->failed = 1;
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

/* ------------------------------------------------------------------ every rank's phases */
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
    int *failed;                 /* per rank: 0, or the exit status of its failure (1, 2) */
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
        j->failed[rank] = PAS2P_ANALYZE_BAD_INPUT;
        pas2p_rank_reader_close(ra);
        return;
    }
    const pas2p_file_header_t *h = pas2p_rank_reader_header(ra);
    if (h->np != (uint32_t)j->np || h->rank != (uint32_t)rank) { /* files of another run */
        snprintf(out->error, sizeof out->error,
                 "rank-%05d.p2t: rank %u of a run of %u ranks, but the manifest says %d ranks",
                 rank, h->rank, h->np, j->np);
        j->failed[rank] = PAS2P_ANALYZE_BAD_INPUT;
        pas2p_rank_reader_close(ra);
        pas2p_rank_reader_close(rb);
        return;
    }
    int instr = h->ncounters && !strcmp(h->counters[0], "PAPI_TOT_INS");
    src_t sa = {ra, j->strict, 0, 0, 0}, sb = {rb, j->strict, 0, 1, 0};
    pas2p_event_source_t a = {src_next, src_error, &sa, src_batch, NULL},
                         b = {src_next, src_error, &sb, src_batch, src_times};
    if (pas2p_find_phases(a, b, j->o, instr, out)) {
        j->failed[rank] = sa.failed || sb.failed ? PAS2P_ANALYZE_BAD_INPUT : PAS2P_ANALYZE_FAILED;
    } else if (sa.truncated) {
        snprintf(j->warn[rank], sizeof j->warn[rank], "%s; analysed the complete part",
                 pas2p_rank_reader_error(ra));
    } else if (pas2p_manifest_check_count(j->m, rank, out->events, err, sizeof err)) {
        /* cut exactly between two records: only the manifest knows */
        if (j->strict) {
            snprintf(out->error, sizeof out->error, "%s", err);
            j->failed[rank] = PAS2P_ANALYZE_BAD_INPUT;
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

/* 0 if no process failed; else the exit status of the lowest process that failed, which
 * says its error (*speak), so that a distributed run says it once */
static int any_failed(const pas2p_analyze_dist_t *d, int code, int *speak)
{
    if (!d) {
        *speak = code != 0;
        return code;
    }
    double v = d->max(d->ctx, code ? (double)(d->size - d->self) : 0);
    *speak = code && (int)v == d->size - d->self;
    if (v <= 0)
        return 0;
    return (int)d->max(d->ctx, *speak ? (double)code : 0);
}

/* the maximum of v over the processes of a distributed run */
static double all_max(const pas2p_analyze_dist_t *d, double v)
{
    return d ? d->max(d->ctx, v) : v;
}

/* err: the message when this process says it, else "" */
static void keep_if(int speak, char *err, size_t errlen, const char *msg)
{
    if (speak)
        snprintf(err, errlen, "%s", msg);
    else if (errlen)
        err[0] = 0;
}

/* analyses this process's ranks with `jobs` threads; 0, or the agreed exit status of the
 * first failed rank (its error in err when this process says it) */
static int run_ranks(job_t *j, long jobs, const pas2p_analyze_dist_t *d, char *err, size_t errlen)
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
    int code = any_failed(d, bad < j->np ? j->failed[bad] : 0, &speak);
    keep_if(speak, err, errlen, speak ? j->res[bad].error : "");
    return code;
}

/* ------------------------------------------------------------------ decisions */
double pas2p_phase_skew(const pas2p_rank_phases_t *res, int np)
{
    double worst = 0;
    for (int r = 0; r < np; r++) {
        const pas2p_rank_phases_t *R = &res[r];
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

/* below 4 a prediction cannot skip a warm-up and time three occurrences */
uint64_t pas2p_min_loop_weight(const pas2p_rank_phases_t *res, int np, double relevant_s)
{
    uint64_t w = UINT64_MAX;
    for (int r = 0; r < np; r++)
        for (uint32_t i = 0; i < res[r].nphases; i++) {
            const pas2p_phase_t *p = &res[r].phases[i];
            if (p->weight > 1 && (double)p->weight * p->time_mean_s >= relevant_s && p->weight < w)
                w = p->weight;
        }
    return w;
}

int pas2p_granularity_coarsen(double skew, double max_skew, uint32_t inline_events)
{
    return skew > max_skew && inline_events < 4096;
}

int pas2p_granularity_keep(double skew, double skew_coarser, double min_loop_weight)
{
    return skew_coarser < skew && min_loop_weight >= 4;
}

int pas2p_representative_rank(const pas2p_rank_phases_t *res, int np, double aet_s)
{
    int rep = 0;
    for (int r = 0; r < np; r++)
        if (fabs(res[r].elapsed_s - aet_s) < fabs(res[rep].elapsed_s - aet_s))
            rep = r;
    return rep;
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

int pas2p_ranks_spmd(const pas2p_rank_phases_t *res, int np, int rep)
{
    if (np <= 0)
        return 1;
    uint64_t ref = structure_hash(&res[rep]);
    for (int r = 0; r < np; r++)
        if (structure_hash(&res[r]) != ref)
            return 0;
    return 1;
}

/* ------------------------------------------------------------------ more passes */
/* Every rank file of DIR as an event source, all open at once: the passes that read all
 * ranks together (the logical clock, the global phases). */
typedef struct {
    int np;
    pas2p_rank_reader_t **rd;
    src_t *ss;
    pas2p_event_source_t *src;
} sources_t;

static void sources_close(sources_t *S)
{
    for (int r = 0; S->rd && r < S->np; r++)
        pas2p_rank_reader_close(S->rd[r]);
    free(S->rd);
    free(S->ss);
    free(S->src);
    *S = (sources_t){0};
}

/* 0, or -1 with err (out of memory, a rank file that cannot be opened); close it either way */
static int sources_open(sources_t *S, const char *dir, int np, int strict, char *err, size_t errlen)
{
    S->np = np;
    S->rd = calloc((size_t)np, sizeof *S->rd);
    S->ss = calloc((size_t)np, sizeof *S->ss);
    S->src = calloc((size_t)np, sizeof *S->src);
    if (!S->rd || !S->ss || !S->src) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int r = 0; r < np; r++) {
        char path[PATH_MAX];
        pas2p_rank_path(dir, r, path, sizeof path);
        S->rd[r] = pas2p_rank_reader_open(path, err, errlen);
        if (!S->rd[r])
            return -1;
        S->ss[r] = (src_t){S->rd[r], strict, 0, 0, 0};
        S->src[r] = (pas2p_event_source_t){src_next, src_error, &S->ss[r], src_batch, NULL};
    }
    return 0;
}

/* the first rank whose calls came from more than one thread, or -1: traced under
 * MPI_THREAD_MULTIPLE (unless the manifest says one thread: an application may ask for it
 * and call MPI from its main thread only, a hybrid code whose OpenMP threads compute; an
 * older trace does not say), or under any level with calls from several threads (MolDS
 * initialises MPI_THREAD_SINGLE, then sends and receives from Boost threads while its main
 * thread computes: their events interleave, each thread's computation overlaps the
 * others', and a global analysis summed them -- 181 % coverage) */
static int sources_multithreaded(const sources_t *S, const pas2p_manifest_t *m)
{
    for (int r = 0; r < S->np; r++) {
        int level = pas2p_rank_reader_header(S->rd[r])->thread_level;
        if (m && m->threads ? m->threads[r] > 1 : level == 3)
            return r;
    }
    return -1;
}

/* length of the logical trace: one more pass over every rank file */
static int logical_time(const char *dir, const pas2p_manifest_t *m, int np, int global,
                        int strict, uint64_t *ticks, char *err, size_t errlen)
{
    sources_t S = {0};
    int rc = -1, mt;
    if (sources_open(&S, dir, np, strict, err, errlen))
        goto out;
    if (global && (mt = sources_multithreaded(&S, m)) >= 0) {
        snprintf(err, errlen, "rank-%05d.p2t: MPI called from several threads; the global "
                 "logical trace needs each thread's own order, which this version does not "
                 "build (use --logical local)", mt);
        goto out;
    }
    rc = pas2p_logical_clock(S.src, np, global, NULL, NULL, ticks, err, errlen);
out:
    sources_close(&S);
    return rc;
}

/* the global phases: one more pass over every rank file, all ranks at once (global.c),
 * and one more when it ends on requests never completed (orphans; the note in orphan_note).
 * 0, -1 (err), or 1: per-rank phases instead (err says why) */
static int global_pass(const char *dir, const pas2p_manifest_t *m, int np, int strict, int cut,
                       const pas2p_analysis_opts_t *o,
                       pas2p_rank_phases_t *res, pas2p_global_info_t *info, char *orphan_note,
                       size_t notelen, char *err, size_t errlen)
{
    sources_t S = {0};
    int rc = -1, mt;
    pas2p_orphans_t *orph = calloc((size_t)np, sizeof *orph);
    orphan_note[0] = 0;
    if (!orph) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    for (int pass = 0; pass < 2; pass++) {
        sources_close(&S);
        if (sources_open(&S, dir, np, strict, err, errlen))
            goto out;
        if ((mt = sources_multithreaded(&S, m)) >= 0) { /* not an error: per-rank phases instead */
            snprintf(err, errlen, "rank-%05d.p2t: MPI called from several threads, whose "
                     "events interleave: phases per rank (local), not global", mt);
            rc = 1;
            goto out;
        }
        const pas2p_file_header_t *h = pas2p_rank_reader_header(S.rd[0]);
        int instr = h->ncounters && !strcmp(h->counters[0], "PAPI_TOT_INS");
        rc = pas2p_global_phases(S.src, np, o, instr, cut, res, orph, info, err,
                                 errlen);
        if (rc != 1)
            break;
        if (pass) { /* cannot be: the second run was told of every orphan */
            snprintf(err, errlen, "requests never completed, found again after being set aside");
            rc = -1;
            break;
        }
        size_t len = 0;
        for (int r = 0; r < np && len < notelen; r++)
            if (orph[r].n)
                len += (size_t)snprintf(orphan_note + len, notelen - len,
                                        "%srank %d leaves %zu request(s) never completed (the "
                                        "first started at event %" PRIu64 ")", len ? "; " : "",
                                        r, orph[r].n, orph[r].post[0]);
        if (len < notelen)
            snprintf(orphan_note + len, notelen - len, ": taken as complete where they start");
    }
out:
    sources_close(&S);
    pas2p_orphans_free(orph, np);
    free(orph);
    return rc;
}

/* the share of the ranks' time in phases that occur more than once (after a global pass) */
static double repeating_share(const pas2p_rank_phases_t *res, int np)
{
    double rep = 0, all = 0;
    for (int r = 0; r < np; r++)
        for (uint32_t k = 0; k < res[r].nphases; k++) {
            const pas2p_phase_t *p = &res[r].phases[k];
            double t = (double)p->weight * p->time_mean_s;
            all += t;
            rep += p->weight > 1 ? t : 0;
        }
    return all > 0 ? rep / all : 0;
}

/* A rank whose wildcard probes find messages in >= 5 % of its calls polls for arrivals:
 * among its other calls (MUMPS's solves, whose sends and successful MPI_Iprobe calls
 * interleave as the messages come: no two solves make the same calls in the same order),
 * or waiting for each one in turn (Ray's ring, the same calls every step).  One trace
 * cannot tell which; the phases can: located by ordinals the first fragments into
 * variants that rarely repeat, located by anchors (global.c) the second's loop is one
 * occurrence between two collectives.  So both are made, and the anchors kept when their
 * phases hold at least 2 points more of the run's time in phases that repeat (MUMPS: 16.1
 * against 12.6 %).  saved[r]: rank r's phases before the first pass (pack.c), NULL when
 * no rank polls so.  Returns 1 when *res, *info and note are now the anchored pass's, 0
 * when they stay, -1 out of memory (err). */
static int try_anchors(const char *dir, const pas2p_manifest_t *m, int np, int strict, int cut,
                       const pas2p_analysis_opts_t *o, unsigned char **saved, size_t *slen,
                       pas2p_rank_phases_t *res, pas2p_global_info_t *info, char *note,
                       size_t notelen, char *err, size_t errlen)
{
    pas2p_rank_phases_t *alt = calloc((size_t)np, sizeof *alt);
    char why[512], note2[1024];
    if (!alt) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = 0;
    for (int r = 0; r < np && !rc; r++)
        if (pas2p_rank_phases_unpack(saved[r], slen[r], &alt[r], why, sizeof why)) {
            snprintf(err, errlen, "%s", why);
            rc = -1;
        }
    pas2p_analysis_opts_t oa = *o;
    oa.locate = 1;
    pas2p_global_info_t ia = {0};
    if (!rc && !global_pass(dir, m, np, strict, cut, &oa, alt, &ia, note2, sizeof note2, why,
                            sizeof why)) {
        double a = repeating_share(alt, np), b = repeating_share(res, np);
        if (a > b + 0.02) {
            for (int r = 0; r < np; r++) {
                pas2p_rank_phases_t t = res[r];
                res[r] = alt[r];
                alt[r] = t;
            }
            *info = ia;
            info->anchored_probes = 1;
            info->repeating = a;
            info->repeating_ordinals = b;
            snprintf(note, notelen, "%s", note2);
            rc = 1;
        }
    } /* (the anchored pass failing leaves the first one's result: it stands on its own) */
    for (int r = 0; r < np; r++)
        pas2p_rank_phases_free(&alt[r]);
    free(alt);
    return rc;
}

/* ------------------------------------------------------------------ the signature */
int pas2p_build_signature(const pas2p_rank_phases_t *res, const pas2p_manifest_t *m,
                          const pas2p_analysis_opts_t *o, int rep, int spmd,
                          pas2p_signature_t *s)
{
    memset(s, 0, sizeof *s);
    s->version = PAS2P_SIGNATURE_VERSION;
    snprintf(s->command, sizeof s->command, "%s", m->command);
    snprintf(s->program, sizeof s->program, "%s", m->program);
    snprintf(s->counters, sizeof s->counters, "%s", m->counters[0] ? m->counters : "none");
    snprintf(s->tracer, sizeof s->tracer, "%s", m->tracer);
    size_t len = 0;
    for (int r = 0; m->hosts && r < m->np && len < sizeof s->hosts; r++)
        len += (size_t)snprintf(s->hosts + len, sizeof s->hosts - len, "%s%s", r ? "," : "", m->hosts[r]);
    s->np = (uint32_t)m->np;
    s->aet_s = m->aet_s;
    s->mpi_threads = pas2p_manifest_mpi_threads(m);
    s->relevance = o->relevance;
    s->compute_similarity = o->compute_similarity;
    s->compute_similarity_time = o->compute_similarity_time;
    s->size_tolerance = o->size_tolerance;
    s->size_floor = o->size_floor;
    s->inline_events = o->inline_events;
    s->representative = (uint32_t)rep;
    s->spmd = spmd;
    s->global = o->global;
    s->runs = s->tests = s->probes = s->waits = o->global; /* global.c numbers calls with
                                           pas2p_number_event(.., pas2p_analysis_rules(o)) */
    s->waits += 2 * (o->global && o->waits_tested); /* 3: "flagged" */
    s->characteristic_comm = UINT32_MAX;
    s->nranks = (uint32_t)m->np;
    s->ranks = calloc(s->nranks ? s->nranks : 1, sizeof *s->ranks);
    if (!s->ranks)
        return -1;
    /* global phases: a phase is relevant on every rank when it is on any (its id is the same
     * slice of the program everywhere, and it is replayed and timed as one) */
    uint32_t maxid = 0;
    for (int r = 0; o->global && r < m->np; r++)
        for (uint32_t i = 0; i < res[r].nphases; i++)
            if (res[r].phases[i].id > maxid)
                maxid = res[r].phases[i].id;
    unsigned char *grel = calloc(maxid + 1, 1);
    if (!grel)
        return -1;
    for (int r = 0; o->global && r < m->np; r++)
        for (uint32_t i = 0; i < res[r].nphases; i++) {
            const pas2p_phase_t *p = &res[r].phases[i];
            if ((double)p->weight * p->time_mean_s >= o->relevance * m->aet_s)
                grel[p->id] = 1;
        }
    int rc = -1;
    for (int r = 0; r < m->np; r++) {
        const pas2p_rank_phases_t *R = &res[r];
        pas2p_sig_rank_t *S = &s->ranks[r];
        S->rank = (uint32_t)r;
        S->elapsed_s = R->elapsed_s;
        S->events = R->events;
        S->kernel_rate = m->kernel_rate ? m->kernel_rate[r] : 0;
        S->compute_blocked = m->compute_blocked ? m->compute_blocked[r] : 0;
        S->untraced_s = (m->untraced_s ? m->untraced_s[r] : 0) +
                        (m->untraced_io_s ? m->untraced_io_s[r] : 0) +
                        (m->untraced_nbr_s ? m->untraced_nbr_s[r] : 0);
        s->events += R->events;
        S->nphases = R->nphases;
        S->phases = calloc(R->nphases ? R->nphases : 1, sizeof *S->phases);
        if (!S->phases)
            goto out;
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
            memcpy(q->occ_astart, p->first_astart, q->nocc * sizeof *q->occ_astart);
            memcpy(q->occ_aend, p->first_aend, q->nocc * sizeof *q->occ_aend);
            q->variable = p->variable;
            q->skel_occ = p->skel_occ > 1 ? p->skel_occ : 1;
            q->nevents = p->nsym;
            q->events = calloc(p->nsym ? p->nsym : 1, sizeof *q->events);
            if (!q->events)
                goto out;
            for (uint32_t k = 0; k < p->nsym; k++) {
                const pas2p_symbol_t *y = &R->symbols[p->syms[k]];
                q->events[k] = (pas2p_sig_event_t){
                    .call = y->call, .peer = y->peer, .tag = y->tag, .peer2 = y->peer2,
                    .tag2 = y->tag2, .comm = y->comm, .aux = y->aux, .bytes = y->bytes,
                    .rbytes = y->rbytes, .compute_s = p->pos_compute_s[k],
                    .instructions = p->pos_instructions[k]};
                uint32_t ns = R->sym_starts ? R->sym_nstarts[p->syms[k]] : 0;
                if (ns) { /* the persistent requests a Start starts (their hash, in the
                           * symbol's peer2 and tag2, told Starts apart: not the call's) */
                    q->events[k].peer2 = q->events[k].tag2 = -1;
                    if (!(q->events[k].starts = malloc(ns * sizeof *q->events[k].starts)))
                        goto out;
                    memcpy(q->events[k].starts, R->sym_starts[p->syms[k]],
                           ns * sizeof *q->events[k].starts);
                    q->events[k].nstarts = ns;
                }
                if (p->pos_bytes) { /* global phases: sizes are the phase's mean */
                    q->events[k].bytes = (uint64_t)llround(p->pos_bytes[k]);
                    q->events[k].rbytes = (uint64_t)llround(p->pos_rbytes[k]);
                    q->events[k].size_min = p->pos_size_min[k];
                    q->events[k].size_max = p->pos_size_max[k];
                    q->events[k].wait_s = p->pos_wait_s ? p->pos_wait_s[k] : 0;
                    q->events[k].completes = p->pos_wdist ? p->pos_wdist[k] : 0;
                    q->events[k].pcompletes = p->pos_pwdist ? p->pos_pwdist[k] : 0;
                    q->events[k].occ_start = p->pos_occ_start ? p->pos_occ_start[k] : 0;
                    uint32_t pd = p->pos_pdone ? p->pos_pdone[k] : 0;
                    q->events[k].polled = pd & 0x7fffffffu;
                    q->events[k].cancelled = pd >> 31;
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
                goto out;
            s->comms = nc;
            const pas2p_comm_info_t *ci = &R->comms[c];
            pas2p_sig_comm_t *d = &s->comms[s->ncomms++];
            *d = (pas2p_sig_comm_t){.id = ci->id, .parent = ci->parent, .call = ci->call,
                                    .size = ci->size, .ndims = ci->ndims};
            d->members = malloc(sizeof(int32_t) * (ci->size ? ci->size : 1));
            d->dims = ci->ndims ? malloc(sizeof(int32_t) * ci->ndims) : NULL;
            d->periods = ci->ndims ? malloc(sizeof(int32_t) * ci->ndims) : NULL;
            if (!d->members || (ci->ndims && (!d->dims || !d->periods)))
                goto out;
            memcpy(d->members, ci->members, sizeof(int32_t) * ci->size);
            if (ci->ndims) {
                memcpy(d->dims, ci->dims, sizeof(int32_t) * ci->ndims);
                memcpy(d->periods, ci->periods, sizeof(int32_t) * ci->ndims);
            }
        }
    }
    s->pet_s = s->relevant_s + s->remainder_s;
    s->coverage = m->aet_s > 0 ? s->relevant_s / m->aet_s : 0;
    rc = 0;
out:
    free(grel);
    return rc;
}

uint32_t pas2p_signature_relevant_count(const pas2p_signature_t *s, int global, int rep)
{
    uint32_t nrel = 0;
    if (global) { /* relevant global phases, on any rank */
        uint32_t maxid = 0;
        for (uint32_t r = 0; r < s->nranks; r++)
            for (uint32_t i = 0; i < s->ranks[r].nphases; i++)
                if (s->ranks[r].phases[i].relevant && s->ranks[r].phases[i].id > maxid)
                    maxid = s->ranks[r].phases[i].id;
        for (uint32_t id = 1; id <= maxid; id++) {
            int rel = 0;
            for (uint32_t r = 0; r < s->nranks && !rel; r++)
                for (uint32_t i = 0; i < s->ranks[r].nphases && !rel; i++)
                    rel = s->ranks[r].phases[i].id == id && s->ranks[r].phases[i].relevant;
            nrel += rel;
        }
    } else if (rep >= 0 && (uint32_t)rep < s->nranks) {
        for (uint32_t i = 0; i < s->ranks[rep].nphases; i++)
            nrel += s->ranks[rep].phases[i].relevant;
    }
    return nrel;
}

/* ------------------------------------------------------------------ the engine */
/* one more line for out->warnings; 0 or -1 (out of memory) */
static int warn(pas2p_analyze_result_t *out, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    size_t have = out->warnings ? strlen(out->warnings) : 0, add = strlen(line);
    char *w = realloc(out->warnings, have + add + 2);
    if (!w)
        return -1;
    if (have)
        w[have++] = '\n';
    memcpy(w + have, line, add + 1);
    out->warnings = w;
    return 0;
}

/* a second failure after the first: said in the same line */
static void add_error(char *err, size_t errlen, const char *more)
{
    size_t n = strlen(err);
    if (!n)
        snprintf(err, errlen, "%s", more);
    else if (n < errlen)
        snprintf(err + n, errlen - n, "; %s", more);
}

/* ------------------------------------------------------------------ the base runs pooled
 * `pas2p trace --runs N` keeps the run whose AET is the median as TRACE_DIR and the others
 * in TRACE_DIR/run-K.  Each of those is analysed with the options the kept run's analysis
 * ended with (granularity, phase mode, thresholds), and every phase that has the same id,
 * weight and recorded occurrences on the same rank in all of them gets the runs' median of
 * its mean time and of each recorded occurrence's time (pas2p_sig_phase_t runs,
 * runs_time_mean_s, occ_runs_time_s): predict pairs its timed occurrences with those, since
 * one run's early occurrences carry that run's noise.  The median, not the mean: one run of
 * five whose first occurrences ran slowly moved ftn_ring's pooled mean of occurrences 1-3 by
 * +15 % and its predictions by -13 % (experiment run T; validation/bench/results/
 * predict.md).  A run whose analysis fails, or whose phases differ, is said and left out
 * (of the phases it differs in: those are not pooled).  Everything else in the signature is
 * the kept run's.  Returns -1 when out of memory, else 0. */
static double median_inplace(double *v, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++) /* (n <= 99: insertion sort) */
        for (uint32_t j = i; j > 0 && v[j] < v[j - 1]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* rank r's phase like p (same id, weight and occurrences) in signature s2, or NULL */
static const pas2p_sig_phase_t *same_phase(const pas2p_signature_t *s2, uint32_t r,
                                           uint32_t rank, const pas2p_sig_phase_t *p)
{
    if (r >= s2->nranks || s2->ranks[r].rank != rank)
        return NULL;
    for (uint32_t i = 0; i < s2->ranks[r].nphases; i++) {
        const pas2p_sig_phase_t *q = &s2->ranks[r].phases[i];
        if (q->id == p->id && q->weight == p->weight && q->nocc == p->nocc)
            return q;
    }
    return NULL;
}

static int pool_runs(const char *dir, const pas2p_analyze_opts_t *opts,
                     const pas2p_analysis_opts_t *o, pas2p_analyze_result_t *out)
{
    pas2p_signature_t *sig = &out->sig;
    pas2p_analyze_result_t *run = calloc(99, sizeof *run);
    double *v = malloc(100 * sizeof *v);
    uint32_t used = 0;
    int rc = run && v ? 0 : -1;
    for (int K = 1; !rc && K <= 99; K++) {
        char path[PATH_MAX], man[PATH_MAX + 16];
        snprintf(path, sizeof path, "%s/run-%d", dir, K);
        snprintf(man, sizeof man, "%s/manifest", path);
        if (access(man, R_OK))
            continue;
        out->runs_found++;
        pas2p_analyze_opts_t o2 = *opts;
        o2.trace = path;
        o2.signature = NULL;
        o2.one_run = 1;
        o2.inline_auto = 0;
        o2.analysis = *o;
        o2.size_tolerance_given = o2.size_floor_given = 1;
        o2.logical = -1;
        pas2p_analyze_result_t *r2 = &run[used];
        char e2[1024];
        int bad = pas2p_analyze(&o2, NULL, r2, e2, sizeof e2);
        const char *why = bad ? e2
                          : !r2->done || r2->global != out->global ? "its phases are of another kind"
                          : r2->sig.nranks != sig->nranks ? "another number of ranks"
                          : NULL;
        if (why) {
            rc = warn(out, "run-%d (pas2p trace --runs): not pooled: %s", K, why) ? -1 : 0;
            pas2p_analyze_result_free(r2);
            continue;
        }
        uint32_t differ = 0;
        for (uint32_t r = 0; r < sig->nranks; r++)
            for (uint32_t k = 0; k < sig->ranks[r].nphases; k++)
                differ += !same_phase(&r2->sig, r, sig->ranks[r].rank, &sig->ranks[r].phases[k]);
        if (differ && warn(out, "run-%d (pas2p trace --runs): %u phase(s) of the kept run "
                           "(counted over its ranks) are not in it with the same id, weight and "
                           "occurrences: those are not pooled", K, differ))
            rc = -1;
        used++;
    }
    for (uint32_t r = 0; !rc && used && r < sig->nranks; r++)
        for (uint32_t k = 0; k < sig->ranks[r].nphases; k++) {
            pas2p_sig_phase_t *p = &sig->ranks[r].phases[k];
            const pas2p_sig_phase_t *q[99];
            uint32_t n = 0;
            for (uint32_t i = 0; i < used; i++)
                if ((q[n] = same_phase(&run[i].sig, r, sig->ranks[r].rank, p)))
                    n++;
            if (n < used)
                continue; /* not in every run: not pooled */
            p->runs = used + 1;
            v[0] = p->time_mean_s;
            for (uint32_t i = 0; i < n; i++)
                v[i + 1] = q[i]->time_mean_s;
            p->runs_time_mean_s = median_inplace(v, n + 1);
            for (uint32_t j = 0; j < p->nocc && j < PAS2P_SIG_OCC; j++) {
                uint32_t m = 0;
                if (p->occ_time_s[j] > 0)
                    v[m++] = p->occ_time_s[j];
                for (uint32_t i = 0; i < n; i++)
                    if (q[i]->occ_time_s[j] > 0)
                        v[m++] = q[i]->occ_time_s[j];
                p->occ_runs_time_s[j] = m == n + 1 ? median_inplace(v, m) : 0;
            }
            out->phases_pooled++;
            out->runs_pooled = p->runs;
        }
    for (uint32_t i = 0; run && i < used; i++)
        pas2p_analyze_result_free(&run[i]);
    free(run);
    free(v);
    return rc;
}

int pas2p_analyze(const pas2p_analyze_opts_t *opts, const pas2p_analyze_dist_t *dist,
                  pas2p_analyze_result_t *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (errlen)
        err[0] = 0;
    const char *dir = opts->trace;
    pas2p_analysis_opts_t o = opts->analysis;
    if (!o.global && !opts->size_tolerance_given)
        o.size_tolerance = 0.05; /* the per-rank analysis keeps its own default */
    if (!o.global && !opts->size_floor_given)
        o.size_floor = 0;
    double t0 = pas2p_mono_s();
    pas2p_manifest_t m;
    char why[1024];
    int speak, bad = pas2p_manifest_read(dir, &m, why, sizeof why) != 0;
    int rc = any_failed(dist, bad ? PAS2P_ANALYZE_BAD_INPUT : 0, &speak);
    if (rc) {
        keep_if(speak, err, errlen, why);
        if (!bad)
            pas2p_manifest_free(&m);
        return rc;
    }
    int np = m.np;
    o.waits_tested = m.waits_tested;
    /* MPI called from several threads (global_pass refuses such a trace): per-rank phases,
     * decided before the per-rank analysis, which numbers calls as the phases it serves
     * will (yade, MPI_THREAD_MULTIPLE: its tables were numbered for global phases, without
     * its MPI_Probe calls, the signature said local, predict counted every call and every
     * run diverged at the first Probe) */
    if (o.global) {
        sources_t S = {0};
        int mt = sources_open(&S, dir, np, opts->strict, why, sizeof why) ? -1
                                                                            : sources_multithreaded(&S, &m);
        sources_close(&S);
        if (mt >= 0) {
            o.global = 0;
            if (!opts->size_tolerance_given)
                o.size_tolerance = 0.05;
            if (!opts->size_floor_given)
                o.size_floor = 0;
            snprintf(out->local_why, sizeof out->local_why, "rank-%05d.p2t: MPI called from "
                     "several threads, whose events interleave: phases per rank (local), not "
                     "global", mt);
        }
    }
    job_t j = {.dir = dir, .m = &m, .o = &o, .strict = opts->strict, .np = np,
               .first = dist ? dist->self : 0, .stride = dist ? dist->size : 1,
               .lock = PTHREAD_MUTEX_INITIALIZER};
    j.res = calloc((size_t)np, sizeof *j.res);
    j.warn = calloc((size_t)np, sizeof *j.warn);
    j.failed = calloc((size_t)np, sizeof *j.failed);
    bad = !j.res || !j.warn || !j.failed;
    if ((rc = any_failed(dist, bad ? PAS2P_ANALYZE_FAILED : 0, &speak))) {
        keep_if(speak, err, errlen, "out of memory");
        job_free(&j);
        pas2p_manifest_free(&m);
        return rc;
    }
    long mine = j.first < np ? (np - j.first + j.stride - 1) / j.stride : 0;
    long jobs = opts->jobs;
    if (!jobs)
        jobs = dist && dist->jobs > 0 ? dist->jobs
               : sysconf(_SC_NPROCESSORS_ONLN) > 0 ? sysconf(_SC_NPROCESSORS_ONLN) : 1;
    if (jobs > mine)
        jobs = mine > 0 ? mine : 1;
    rc = run_ranks(&j, jobs, dist, err, errlen);
    /* auto granularity: coarser phases while a heavy phase is skewed and coarsening helps
     * (decided over all ranks: every process takes the same branch) */
    double skew = rc ? 0 : all_max(dist, pas2p_phase_skew(j.res, np)), skew0 = -1;
    while (!rc && opts->inline_auto && pas2p_granularity_coarsen(skew, opts->skew, o.inline_events)) {
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
        /* a coarser try that fails is not the analysis failing: the finer phases stand */
        if (!any_failed(dist, bad ? PAS2P_ANALYZE_FAILED : 0, &speak) &&
            !run_ranks(&j2, jobs, dist, why, sizeof why)) {
            skew2 = all_max(dist, pas2p_phase_skew(j2.res, np));
            /* the smallest weight of a relevant loop phase, over all processes */
            double w = -all_max(dist, -(double)pas2p_min_loop_weight(j2.res, np,
                                                                     o.relevance * m.aet_s));
            better = pas2p_granularity_keep(skew, skew2, w);
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
        why[0] = 0;
        bad = dist->gather(dist->ctx, j.res, j.warn, np, why, sizeof why) != 0;
        if ((rc = any_failed(dist, bad ? PAS2P_ANALYZE_FAILED : 0, &speak)))
            keep_if(speak, err, errlen, why);
    }
    if (rc || (dist && dist->self)) {
        job_free(&j);
        pas2p_manifest_free(&m);
        return rc;
    }
    out->np = np;
    out->global = o.global;
    if (o.global) {
        int cut = 0;
        for (int r = 0; r < np; r++)
            cut |= j.warn[r][0] != 0;
        char note[1024];
        /* a rank polls for arrivals with wildcard probes: its phases kept to be located by
         * anchors as well (try_anchors) */
        unsigned char **saved = NULL;
        size_t *slen = NULL;
        int poll = 0;
        for (int r = 0; r < np && o.locate < 0; r++) {
            uint64_t calls = j.res[r].numbered ? j.res[r].numbered : j.res[r].events;
            poll |= j.res[r].probed_wildcards > 0 && 20 * j.res[r].probed_wildcards >= calls;
        }
        if (poll && (!(saved = calloc((size_t)np, sizeof *saved)) ||
                     !(slen = calloc((size_t)np, sizeof *slen))))
            poll = -1;
        for (int r = 0; poll > 0 && r < np; r++)
            if (pas2p_rank_phases_pack(&j.res[r], &saved[r], &slen[r]))
                poll = -1;
        int g = poll < 0 ? -1 : global_pass(dir, &m, np, opts->strict, cut, &o, j.res,
                                             &out->ginfo, note, sizeof note, why, sizeof why);
        if (poll < 0)
            snprintf(why, sizeof why, "out of memory");
        else if (!g && poll && !out->ginfo.anchored &&
                 try_anchors(dir, &m, np, opts->strict, cut, &o, saved, slen, j.res,
                             &out->ginfo, note, sizeof note, why, sizeof why) < 0)
            g = -1;
        for (int r = 0; saved && r < np; r++)
            free(saved[r]);
        free(saved);
        free(slen);
        if (!g && note[0] && warn(out, "%s", note)) {
            snprintf(err, errlen, "out of memory");
            rc = PAS2P_ANALYZE_FAILED;
        } else if (g > 0) {
            snprintf(out->local_why, sizeof out->local_why, "%s", why);
            o.global = out->global = 0;
        } else if (g < 0) {
            snprintf(err, errlen, "%s", why);
            rc = PAS2P_ANALYZE_FAILED;
        } else if (out->ginfo.unclosed_end &&
                   warn(out, "the trace is cut: its last occurrence is not communication-closed")) {
            snprintf(err, errlen, "out of memory");
            rc = PAS2P_ANALYZE_FAILED;
        } else if (!g && out->ginfo.unreceived &&
                   warn(out, "%" PRIu64 " message(s) sent and never received (the first from rank "
                        "%d to rank %d): left in flight at the end, they belong to the last "
                        "occurrence, and replay and simulate leave them out",
                        out->ginfo.unreceived, out->ginfo.unreceived_src,
                        out->ginfo.unreceived_dst)) {
            snprintf(err, errlen, "out of memory");
            rc = PAS2P_ANALYZE_FAILED;
        }
    }
    char untraced[512];
    if (!rc && pas2p_manifest_untraced_note(&m, untraced, sizeof untraced) &&
        warn(out, "%s", untraced)) {
        snprintf(err, errlen, "out of memory");
        rc = PAS2P_ANALYZE_FAILED;
    }
    if (!rc)
        pas2p_manifest_shared_note(&m, out->shared_note, sizeof out->shared_note);
    for (int r = 0; !rc && r < np; r++) {
        out->truncated_ranks += j.warn[r][0] != 0; /* (j.warn: a truncated rank file) */
        if (j.warn[r][0] && warn(out, "%s", j.warn[r])) {
            snprintf(err, errlen, "out of memory");
            rc = PAS2P_ANALYZE_FAILED;
        }
        out->events += j.res[r].events;
    }
    if (!rc) {
        int rep = pas2p_representative_rank(j.res, np, m.aet_s);
        /* structure: the same calls in the same loops on every rank?  (peers differ by
         * rank, computation variants by noise: compare call sequences x weights) */
        int spmd = pas2p_ranks_spmd(j.res, np, rep);
        if (opts->signature)
            snprintf(out->signature_path, sizeof out->signature_path, "%s", opts->signature);
        else
            snprintf(out->signature_path, sizeof out->signature_path, "%s/signature.xml", dir);
        if (pas2p_build_signature(j.res, &m, &o, rep, spmd, &out->sig)) {
            snprintf(err, errlen, "out of memory");
            rc = PAS2P_ANALYZE_FAILED;
        } else {
            if (o.global) {
                out->sig.characteristic_comm = out->ginfo.characteristic_comm;
                out->sig.anchored = out->ginfo.anchored;
            }
            out->done = 1;
            out->representative = rep;
            out->spmd = spmd;
            out->phases = o.global ? out->ginfo.phases : j.res[rep].nphases;
            out->relevant = pas2p_signature_relevant_count(&out->sig, o.global, rep);
            out->inline_events = o.inline_events;
            out->skew_before = skew0;
            out->skew_after = skew;
            out->aet_s = m.aet_s;
            /* (one_run: another run's analysis, whose caller takes out->sig) */
            int pooled = opts->one_run || !pool_runs(dir, opts, &o, out);
            if (!pooled) {
                snprintf(err, errlen, "out of memory");
                rc = PAS2P_ANALYZE_FAILED;
            }
            if (pooled && !opts->one_run && opts->logical >= 0) {
                if (logical_time(dir, &m, np, opts->logical, opts->strict, &out->logical_ticks, why,
                                 sizeof why)) {
                    add_error(err, errlen, why);
                    rc = PAS2P_ANALYZE_FAILED;
                } else {
                    out->logical_done = 1;
                }
            }
            if (pooled && !opts->one_run &&
                pas2p_signature_write(&out->sig, out->signature_path, why, sizeof why)) {
                add_error(err, errlen, why);
                rc = PAS2P_ANALYZE_FAILED;
            } else if (pooled && !opts->one_run) {
                out->signature_written = 1;
            }
            out->tfat_s = pas2p_mono_s() - t0;
        }
    }
    job_free(&j);
    pas2p_manifest_free(&m);
    return rc;
}
