/* `pas2p analyze TRACE_DIR [options]`: phases, weights, relevant phases and coverage of
 * every rank, the representative rank (EPAS), and the base-machine PET.
 * (Writing the signature file is the next step of this module and not offered yet.) */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pas2p_analyzer.h"

static const char usage[] =
    "usage: pas2p analyze TRACE_DIR [--jobs N] [--relevance F] [--compute-similarity F]\n"
    "                     [--size-tolerance F] [--strict] [--all-ranks]\n"
    "\n"
    "Finds each rank's phases (repeating sequences of MPI calls with their computation) and\n"
    "weights, the relevant phases (weight x time >= F x AET, default 0.01) and their coverage,\n"
    "and picks the representative rank (EPAS: preliminary PET closest to AET).  Prints\n"
    "`events`, `relevant phases`, `coverage`, `AET`, `PET` (base machine: relevant phases\n"
    "plus the explicit remainder), `TFAT`, and the representative rank's phase table.\n"
    "\n"
    "  --jobs N                ranks analysed in parallel (default: number of cores)\n"
    "  --compute-similarity F  occurrences are the same phase when their computation is\n"
    "                          >= F alike (default 0.85 on instruction counts; 0.5 on time\n"
    "                          when the trace has no counters: scheduling noise)\n"
    "  --size-tolerance F      message sizes within F are alike (default 0.05)\n"
    "  --strict                refuse a truncated rank file instead of analysing what is there\n"
    "  --all-ranks             print every rank's phase table\n";

typedef struct {
    pas2p_rank_reader_t *r;
    int strict, truncated;
} src_t;

static int src_next(void *ctx, pas2p_event_view_t *out)
{
    src_t *s = ctx;
    int rc = pas2p_rank_reader_next(s->r, out);
    if (rc < 0 && !s->strict) { /* analyse what is complete, and say so */
        s->truncated = 1;
        return 0;
    }
    return rc;
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
    int next;                    /* next rank to analyse (under lock) */
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
    int instr = h->ncounters && !strcmp(h->counters[0], "PAPI_TOT_INS");
    src_t sa = {ra, j->strict, 0}, sb = {rb, j->strict, 0};
    pas2p_event_source_t a = {src_next, src_error, &sa}, b = {src_next, src_error, &sb};
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
        int rank = j->next++;
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

/* short description of a phase: its first calls */
static void describe(const pas2p_rank_phases_t *r, const pas2p_phase_t *p, char *out, size_t n)
{
    size_t len = 0;
    out[0] = 0;
    for (uint32_t i = 0; i < p->nsym && i < 4 && len < n; i++)
        len += (size_t)snprintf(out + len, n - len, "%s%s", i ? " " : "",
                                pas2p_call_name(r->symbols[p->syms[i]].call) + 4);
    if (p->nsym > 4 && len < n)
        snprintf(out + len, n - len, " ...");
}

static void print_table(const pas2p_rank_phases_t *r, double aet, double relevance)
{
    printf("\n# rank %d phases (relevant: weight x time >= %.2f %% of AET)\n", r->rank,
           relevance * 100);
    printf("%5s %8s %10s %12s %12s %12s %8s  %-3s %s\n", "phase", "events", "weight", "time_s",
           "median_s", "W*time_s", "%AET", "rel", "calls");
    for (uint32_t i = 0; i < r->nphases; i++) {
        const pas2p_phase_t *p = &r->phases[i];
        double wt = (double)p->weight * p->time_mean_s;
        char d[96];
        describe(r, p, d, sizeof d);
        printf("%5u %8u %10llu %12.6f %12.6f %12.6f %8.2f  %-3s %s\n", p->id, p->nsym,
               (unsigned long long)p->weight, p->time_mean_s, p->time_median_s, wt,
               aet > 0 ? 100 * wt / aet : 0, wt >= relevance * aet ? "yes" : "", d);
    }
}

int pas2p_cmd_analyze(int argc, char **argv)
{
    const char *dir = NULL;
    pas2p_analysis_opts_t o;
    pas2p_analysis_defaults(&o);
    long jobs = 0;
    int strict = 0, all = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(a, "--jobs") && i + 1 < argc) {
            char *end;
            jobs = strtol(argv[++i], &end, 10);
            if (*end || jobs < 1 || jobs > 1024) {
                fprintf(stderr, "pas2p analyze: --jobs needs a number from 1 to 1024\n");
                return 2;
            }
        } else if (!strcmp(a, "--relevance") && i + 1 < argc) {
            if (parse_fraction(argv[++i], &o.relevance)) {
                fprintf(stderr, "pas2p analyze: --relevance needs a fraction in [0, 1]\n");
                return 2;
            }
        } else if (!strcmp(a, "--compute-similarity") && i + 1 < argc) {
            if (parse_fraction(argv[++i], &o.compute_similarity)) {
                fprintf(stderr, "pas2p analyze: --compute-similarity needs a fraction in [0, 1]\n");
                return 2;
            }
            o.compute_similarity_time = o.compute_similarity;
        } else if (!strcmp(a, "--size-tolerance") && i + 1 < argc) {
            if (parse_fraction(argv[++i], &o.size_tolerance)) {
                fprintf(stderr, "pas2p analyze: --size-tolerance needs a fraction in [0, 1]\n");
                return 2;
            }
        } else if (!strcmp(a, "--strict")) {
            strict = 1;
        } else if (!strcmp(a, "--all-ranks")) {
            all = 1;
        } else if (!strcmp(a, "-o")) {
            fprintf(stderr, "pas2p analyze: writing the signature file (-o) is not available in "
                            "this version yet\n");
            return 2;
        } else if (a[0] == '-' || dir) {
            fprintf(stderr, "pas2p analyze: unexpected '%s' (see --help)\n", a);
            return 2;
        } else {
            dir = a;
        }
    }
    if (!dir) {
        fputs(usage, stderr);
        return 2;
    }
    double t0 = now_s();
    pas2p_manifest_t m;
    char err[1024];
    if (pas2p_manifest_read(dir, &m, err, sizeof err)) {
        fprintf(stderr, "pas2p analyze: %s\n", err);
        return 1;
    }
    int np = m.np;
    job_t j = {.dir = dir, .m = &m, .o = &o, .strict = strict, .np = np,
               .lock = PTHREAD_MUTEX_INITIALIZER};
    j.res = calloc((size_t)np, sizeof *j.res);
    j.warn = calloc((size_t)np, sizeof *j.warn);
    j.failed = calloc((size_t)np, sizeof *j.failed);
    if (!j.res || !j.warn || !j.failed) {
        fprintf(stderr, "pas2p analyze: out of memory\n");
        return 1;
    }
    if (!jobs)
        jobs = sysconf(_SC_NPROCESSORS_ONLN) > 0 ? sysconf(_SC_NPROCESSORS_ONLN) : 1;
    if (jobs > np)
        jobs = np;
    pthread_t *th = calloc((size_t)jobs, sizeof *th);
    long started = 0;
    for (; th && started < jobs; started++)
        if (pthread_create(&th[started], NULL, worker, &j))
            break;
    if (!started)
        worker(&j);
    for (long k = 0; k < started; k++)
        pthread_join(th[k], NULL);
    free(th);

    int rc = 0;
    for (int r = 0; r < np; r++)
        if (j.failed[r]) {
            fprintf(stderr, "pas2p analyze: %s\n", j.res[r].error);
            rc = 1;
            break;
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
        double relevant = 0, remainder = 0;
        uint32_t nrel = 0;
        for (uint32_t i = 0; i < R->nphases; i++) {
            double wt = (double)R->phases[i].weight * R->phases[i].time_mean_s;
            if (wt >= o.relevance * m.aet_s) {
                relevant += wt;
                nrel++;
            } else {
                remainder += wt;
            }
        }
        /* structure: the same calls in the same loops on every rank?  (peers differ by
         * rank, computation variants by noise: compare call sequences x weights) */
        int differ = 0;
        uint64_t ref = structure_hash(R);
        for (int r = 0; r < np && !differ; r++)
            differ = structure_hash(&j.res[r]) != ref;
        double pet = relevant + remainder;
        printf("trace = %s\nnp = %d\n", dir, np);
        printf("events = %llu\n", (unsigned long long)events);
        printf("representative rank = %d\n", rep);
        printf("phases = %u\n", R->nphases);
        printf("relevant phases = %u\n", nrel);
        printf("coverage = %.2f %%\n", m.aet_s > 0 ? 100 * relevant / m.aet_s : 0);
        printf("remainder = %.6f s\n", remainder);
        printf("AET = %.6f s\n", m.aet_s);
        printf("PET = %.6f s\n", pet);
        printf("PETE = %+.2f %%\n", m.aet_s > 0 ? 100 * (pet - m.aet_s) / m.aet_s : 0);
        printf("structure = %s\n", differ ? "ranks differ (per-rank phase tables below with --all-ranks)"
                                          : "identical on all ranks (SPMD)");
        printf("TFAT = %.6f s\n", now_s() - t0);
        for (int r = 0; r < np; r++)
            if (all || r == rep)
                print_table(&j.res[r], m.aet_s, o.relevance);
    }
    for (int r = 0; r < np; r++)
        pas2p_rank_phases_free(&j.res[r]);
    free(j.res);
    free(j.warn);
    free(j.failed);
    pas2p_manifest_free(&m);
    return rc;
}
