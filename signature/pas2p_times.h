/* The signature-mode times file (tracer/FORMAT.md, "Signature-mode times"): one per rank,
 * DIR/rank-NNNNN.times, the target's phase times that every path hands the PET module.
 * This header is its one writer and one reader.
 *
 * Self-contained (static inline, libc only: no libxml2, no signature model, no source file
 * to link), so that every program that writes or reads the file compiles the same code:
 * the signature runtime (sigrun.c, a shared library), the PET module (pet.c, also built
 * alone by the libFuzzer harnesses), the action replayer built with mpicc, and the same
 * replayer built alone by smpicc (simbackend/CMakeLists.txt: -I signature).  The one other writer is
 * libpas2p's own "cannot load the signature runtime" line (tracer/runtime.c), which may not
 * depend on this module.
 *
 *   pas2p-times 1
 *   rank R / np N / pid P / status stopped|completed|diverged / events E / set_s S / checks C
 *   [reason TEXT] [done_at EVENT] [departed N TEXT]
 *   phase ID T1 T2 ...        (each timed occurrence or repetition, seconds, in order)
 *   first ID J                (predict: T1 is the phase's occurrence J, counted from 1, and
 *                              T2 ... the occurrences after it; absent: not occurrences)
 *   variant ID T1 T2 ...      (predict: a minor time variant's occurrences; not read here)
 */
#ifndef PAS2P_TIMES_H
#define PAS2P_TIMES_H

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { PAS2P_TIMES_STOPPED = 1, PAS2P_TIMES_COMPLETED = 2, PAS2P_TIMES_DIVERGED = 3 };

/* at most this many values of a phase line are read (the median is of those) */
#define PAS2P_TIMES_MAX_VALUES 64

/* A file's status lines. */
typedef struct {
    int status;              /* PAS2P_TIMES_STOPPED (early), _COMPLETED, _DIVERGED */
    double set_s;            /* MPI_Init (or the replay's start) to the stop */
    unsigned long long events, done_at; /* done_at: event after which all was measured */
    char reason[1024];
    unsigned long long departed; /* predict, anchored signatures: occurrences of phases that
                                    are not relevant whose calls departed from their skeleton
                                    (tolerated); departed_why: the first, where and how */
    char departed_why[1024];
} pas2p_times_t;

/* ------------------------------------------------------------------ writing
 * begin (the status lines), then per phase: phase(id) and its value()s, then end: the file
 * is written as PATH.tmp and renamed, so a reader never sees half of it.  Or the same lines
 * into a stream of the caller's: format, phase/value, finish (a rank whose times travel to
 * another that writes them: write_text). */
typedef struct {
    FILE *f;
    int in_phase;
    char path[4200], tmp[4300];
} pas2p_times_writer_t;

/* 0, or -1 (errno set; w->tmp is the file that could not be created).  reason, done_at:
 * NULL when there is none. */
/* pas2p_times_begin(w, dir, rank, np, status, events, set_s, checks, reason, done_at),
 * pas2p_times_phase(w, id), pas2p_times_value(w, seconds) */
/* 0, or -1 (errno set; w->path is the file that could not be written) */
/* pas2p_times_end(w) */
/* pas2p_times_format(w, f, rank, np, status, events, set_s, checks, reason, done_at): the
 * status lines into f (w->f = f, no file of its own); pas2p_times_finish(w) ends the last
 * phase line and leaves f open */
/* pas2p_times_write_text(dir, rank, text, len, path, pathlen): text that format wrote, as
 * DIR/rank-NNNNN.times, whole or not at all.  0, or -1 (errno set; path: the file) */

/* ------------------------------------------------------------------ reading */
typedef struct {
    unsigned id;
    int n;                   /* values on its line (at most PAS2P_TIMES_MAX_VALUES read) */
    double median;           /* of those values */
    double min, max;         /* their range */
    unsigned first;          /* predict: the occurrence (from 1) v[0] is; 0: no `first` line */
    double v[PAS2P_TIMES_MAX_VALUES]; /* the values read, in the file's order */
} pas2p_times_phase_t;

typedef struct {
    pas2p_times_t st;
    pas2p_times_phase_t *phases; /* the phase lines, in file order */
    size_t nphases;
} pas2p_times_file_t;

/* Reads DIR/rank-NNNNN.times.  0, or -1 if the file is missing or malformed (a wrong
 * first line, no status, a phase line without a value): err names the file. */
/* pas2p_times_load(dir, rank, out, err, errlen); pas2p_times_file_free(f) */

/* ------------------------------------------------------------------ the code */
static inline void pas2p_times_format(pas2p_times_writer_t *w, FILE *f, int rank, int np,
                                      int status, unsigned long long events, double set_s,
                                      unsigned long long checks, const char *reason,
                                      const unsigned long long *done_at)
{
    w->f = f;
    w->in_phase = 0;
    fprintf(f, "pas2p-times 1\nrank %d\nnp %d\npid %d\nstatus %s\nevents %llu\nset_s %.9f\n"
            "checks %llu\n", rank, np, (int)getpid(),
            status == PAS2P_TIMES_STOPPED     ? "stopped"
            : status == PAS2P_TIMES_COMPLETED ? "completed"
                                              : "diverged",
            events, set_s, checks);
    if (reason)
        fprintf(f, "reason %s\n", reason);
    if (done_at)
        fprintf(f, "done_at %llu\n", *done_at);
}

static inline int pas2p_times_begin(pas2p_times_writer_t *w, const char *dir, int rank, int np,
                                    int status, unsigned long long events, double set_s,
                                    unsigned long long checks, const char *reason,
                                    const unsigned long long *done_at)
{
    snprintf(w->path, sizeof w->path, "%.4000s/rank-%05d.times", dir, rank);
    snprintf(w->tmp, sizeof w->tmp, "%s.tmp", w->path);
    FILE *f = fopen(w->tmp, "w");
    if (!f)
        return -1;
    pas2p_times_format(w, f, rank, np, status, events, set_s, checks, reason, done_at);
    return 0;
}

/* A `departed N TEXT` line (after the status lines, before the phases): N occurrences of
 * phases that are not relevant departed from their skeleton and were tolerated (sigrun.c,
 * anchored signatures); TEXT says the first as a divergence would.  None: no line. */
static inline void pas2p_times_departed(pas2p_times_writer_t *w, unsigned long long n,
                                        const char *text)
{
    if (n)
        fprintf(w->f, "departed %llu %s\n", n, text);
}

static inline void pas2p_times_line_(pas2p_times_writer_t *w, const char *key, unsigned id)
{
    if (w->in_phase)
        fputc('\n', w->f);
    fprintf(w->f, "%s %u", key, id);
    w->in_phase = 1;
}

static inline void pas2p_times_phase(pas2p_times_writer_t *w, unsigned id)
{
    pas2p_times_line_(w, "phase", id);
}

/* A `variant ID T1 T2 ...` line: occurrences of a minor time variant (a phase with the
 * skeleton of one with more occurrences) that completed before the stop.  The PET does not
 * read them (it estimates such a phase from the rank's ratio); they are the data on which
 * estimators that pool a phase's variants are compared (validation/bench/predict_estimators). */
static inline void pas2p_times_variant(pas2p_times_writer_t *w, unsigned id)
{
    pas2p_times_line_(w, "variant", id);
}

/* A `first ID J` line after phase ID's values: the first value is its occurrence J (from 1),
 * the others the occurrences after it (predict: the PET compares each with the same
 * occurrence of the base run) */
static inline void pas2p_times_first(pas2p_times_writer_t *w, unsigned id, unsigned j)
{
    if (w->in_phase)
        fputc('\n', w->f);
    w->in_phase = 0;
    fprintf(w->f, "first %u %u\n", id, j);
}

static inline void pas2p_times_value(pas2p_times_writer_t *w, double seconds)
{
    fprintf(w->f, " %.9f", seconds);
}

static inline void pas2p_times_finish(pas2p_times_writer_t *w)
{
    if (w->in_phase)
        fputc('\n', w->f);
    w->in_phase = 0;
}

/* closes f, written as tmp, and renames it to path: 0, or -1 (errno set, tmp removed) when
 * the writes failed (bad), the close or the rename */
static inline int pas2p_times_commit_(FILE *f, int bad, const char *tmp, const char *path)
{
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path)) {
        int e = errno;
        unlink(tmp);
        errno = e;
        return -1;
    }
    return 0;
}

static inline int pas2p_times_write_text(const char *dir, int rank, const char *text, size_t len,
                                         char *path, size_t pathlen)
{
    char tmp[4300];
    snprintf(path, pathlen, "%.4000s/rank-%05d.times", dir, rank);
    snprintf(tmp, sizeof tmp, "%.4000s/rank-%05d.times.tmp", dir, rank);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(path, pathlen, "%s", tmp);
        return -1;
    }
    return pas2p_times_commit_(f, fwrite(text, 1, len, f) != len, tmp, path);
}

static inline int pas2p_times_end(pas2p_times_writer_t *w)
{
    pas2p_times_finish(w);
    int bad = fclose(w->f);
    w->f = NULL;
    if (bad || rename(w->tmp, w->path)) {
        int e = errno;
        unlink(w->tmp);
        errno = e;
        return -1;
    }
    return 0;
}

/* err = "PATH: WHAT", cut to fit (no format: no truncation warning where the caller's
 * buffer is small and known) */
static inline void pas2p_times_say(char *err, size_t errlen, const char *path, const char *what)
{
    size_t n = 0;
    const char *parts[3] = {path, ": ", what};
    for (int k = 0; k < 3; k++)
        for (const char *c = parts[k]; *c && n + 1 < errlen; c++)
            err[n++] = *c;
    if (errlen)
        err[n] = 0;
}

/* predict --to-end: DIR/to-end.times, written by rank 0 at MPI_Finalize (the ranks' times
 * were gathered and written when the run could have stopped):
 *   pas2p-to-end 1
 *   np N
 *   run_s T                   (one line per rank, in rank order: its MPI_Init return ->
 *                              MPI_Finalize, seconds)
 *   calls A E                 (optional, one line per rank, in rank order: the MPI calls it
 *                              made in the signature's numbering, and the traced run's)
 * Written as a .tmp and renamed; calls, traced: NULL for no calls lines.  0, or -1 (errno
 * set; path: the file) */
static inline int pas2p_times_write_to_end(const char *dir, int np, const double *run_s,
                                           const unsigned long long *calls,
                                           const unsigned long long *traced, char *path,
                                           size_t pathlen)
{
    char tmp[4300];
    snprintf(path, pathlen, "%.4000s/to-end.times", dir);
    snprintf(tmp, sizeof tmp, "%.4000s/to-end.times.tmp", dir);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(path, pathlen, "%s", tmp);
        return -1;
    }
    int bad = fprintf(f, "pas2p-to-end 1\nnp %d\n", np) < 0;
    for (int r = 0; r < np; r++)
        bad |= fprintf(f, "run_s %.9f\n", run_s[r]) < 0;
    for (int r = 0; calls && traced && r < np; r++)
        bad |= fprintf(f, "calls %llu %llu\n", calls[r], traced[r]) < 0;
    return pas2p_times_commit_(f, bad, tmp, path);
}

/* what DIR/to-end.times says */
typedef struct {
    double aet_s;                 /* the slowest rank's MPI_Init -> MPI_Finalize */
    int rank;                     /* the rank whose calls depart most from the traced run's
                                     (-1: no calls lines) */
    unsigned long long calls, traced; /* that rank's calls, and the traced run's */
} pas2p_to_end_t;

/* 0, or -1: err names the file and what is wrong with it (missing, malformed: not np finite
 * non-negative times, calls lines for not every rank) */
static inline int pas2p_times_read_to_end(const char *dir, int np, pas2p_to_end_t *out,
                                          char *err, size_t errlen)
{
    char path[4200], line[256];
    snprintf(path, sizeof path, "%.4000s/to-end.times", dir);
    FILE *f = fopen(path, "r");
    if (!f) {
        pas2p_times_say(err, errlen, path, strerror(errno));
        return -1;
    }
    int n = -1, got = 0, ncalls = 0, ok = fgets(line, sizeof line, f) && !strcmp(line, "pas2p-to-end 1\n");
    double aet = 0, worst = -1;
    *out = (pas2p_to_end_t){.rank = -1};
    while (ok && fgets(line, sizeof line, f)) {
        if (!strncmp(line, "np ", 3)) {
            n = atoi(line + 3);
        } else if (!strncmp(line, "run_s ", 6)) {
            char *end;
            double x = strtod(line + 6, &end);
            if (end == line + 6 || x != x || x < 0 || x > 1e300)
                ok = 0;
            aet = x > aet ? x : aet;
            got++;
        } else if (!strncmp(line, "calls ", 6)) {
            unsigned long long a = 0, e = 0;
            if (sscanf(line + 6, "%llu %llu", &a, &e) != 2)
                ok = 0;
            double off = e ? (a > e ? (double)(a - e) : (double)(e - a)) / (double)e : a ? 1 : 0;
            if (ok && off > worst) {
                worst = off;
                out->rank = ncalls;
                out->calls = a;
                out->traced = e;
            }
            ncalls++;
        }
    }
    fclose(f);
    if (!ok || n != np || got != np || (ncalls && ncalls != np)) {
        pas2p_times_say(err, errlen, path, "malformed (not one run time per rank of the run)");
        return -1;
    }
    out->aet_s = aet;
    return 0;
}

static inline int pas2p_times_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static inline void pas2p_times_file_free(pas2p_times_file_t *f)
{
    free(f->phases);
    f->phases = NULL;
    f->nphases = 0;
}

static inline int pas2p_times_load(const char *dir, unsigned rank, pas2p_times_file_t *out, char *err,
                     size_t errlen)
{
    char path[4200];
    memset(out, 0, sizeof *out);
    snprintf(path, sizeof path, "%.4000s/rank-%05u.times", dir, rank);
    FILE *f = fopen(path, "r");
    if (!f) {
        pas2p_times_say(err, errlen, path, strerror(errno));
        return -1;
    }
    char line[8192];
    size_t cap = 0;
    int ok = fgets(line, sizeof line, f) && !strcmp(line, "pas2p-times 1\n");
    while (ok && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        pas2p_times_t *st = &out->st;
        if (!strncmp(line, "status ", 7)) {
            st->status = !strcmp(line + 7, "stopped")     ? PAS2P_TIMES_STOPPED
                         : !strcmp(line + 7, "completed") ? PAS2P_TIMES_COMPLETED
                                                          : PAS2P_TIMES_DIVERGED;
        } else if (!strncmp(line, "set_s ", 6)) {
            st->set_s = strtod(line + 6, NULL);
        } else if (!strncmp(line, "events ", 7)) {
            st->events = strtoull(line + 7, NULL, 10);
        } else if (!strncmp(line, "done_at ", 8)) {
            st->done_at = strtoull(line + 8, NULL, 10);
        } else if (!strncmp(line, "departed ", 9)) {
            char *end;
            st->departed = strtoull(line + 9, &end, 10);
            snprintf(st->departed_why, sizeof st->departed_why, "%.1000s", *end ? end + 1 : end);
        } else if (!strncmp(line, "reason ", 7)) {
            snprintf(st->reason, sizeof st->reason, "%.1000s", line + 7);
        } else if (!strncmp(line, "first ", 6)) { /* (after its phase line) */
            char *end;
            unsigned long id = strtoul(line + 6, &end, 10), j = strtoul(end, NULL, 10);
            for (size_t i = 0; i < out->nphases; i++)
                if (out->phases[i].id == id && j <= 0xffffffffu)
                    out->phases[i].first = (unsigned)j;
        } else if (!strncmp(line, "phase ", 6)) {
            char *p = line + 6, *end;
            unsigned long id = strtoul(p, &end, 10);
            double v[PAS2P_TIMES_MAX_VALUES];
            int n = 0;
            for (p = end; n < PAS2P_TIMES_MAX_VALUES;) {
                double x = strtod(p, &end);
                if (end == p)
                    break;
                if (x != x || x > 1e300 || x < -1e300) { /* nan, inf: never written */
                    n = 0;
                    break;
                }
                v[n++] = x;
                p = end;
            }
            if (n == 0) {
                ok = 0;
                break;
            }
            if (out->nphases == cap) {
                size_t nc = cap ? 2 * cap : 8;
                pas2p_times_phase_t *np = realloc(out->phases, nc * sizeof *np);
                if (!np) {
                    ok = 0;
                    break;
                }
                out->phases = np;
                cap = nc;
            }
            pas2p_times_phase_t *ph = &out->phases[out->nphases++];
            memcpy(ph->v, v, (size_t)n * sizeof *v);
            ph->first = 0;
            qsort(v, (size_t)n, sizeof *v, pas2p_times_cmp_double);
            ph->id = (unsigned)id;
            ph->n = n;
            ph->median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
            ph->min = v[0];
            ph->max = v[n - 1];
        }
    }
    fclose(f);
    if (!ok || !out->st.status) {
        pas2p_times_say(err, errlen, path, "malformed times file");
        pas2p_times_file_free(out);
        return -1;
    }
    return 0;
}


/* ------------------------------------------------------------------ pairing
 * predict's estimate of a phase: its target values tv[0..n), in occurrence order, each over
 * the base's time bv[i] of the same occurrence (pet.c; sigrun.c asks it whether the stop
 * should await more occurrences).  typical: the base's typical occurrence (its whole-run
 * median; 0 unknown).  Of the pairs (bv > 0, tv >= 0):
 *  - those whose base occurrence is within PAS2P_PAIR_TYPICAL x typical, when there are any:
 *    a base occurrence of another regime pairs its noise with the target's (a 10 ms phase
 *    whose first occurrences ran 0.1 ms: their ratio's noise multiplied its mean, PET 0.01x
 *    or 100x the run; tests/mpi/paired_amplify.c);
 *  - of those, after the last change point when 3 or more come after it: a k where every
 *    ratio before k is PAS2P_PAIR_SHIFT x every one from k or more (or less), and every
 *    target value too, the target running another regime first (a start 60x slower than the base's same occurrences,
 *    then the base's pace: PET 7.4x the run; tests/mpi/slowstart.c), which noise
 *    alone, spreading both sides, does not make;
 * and the ratio is their median. */
#define PAS2P_PAIR_TYPICAL 4.0
#define PAS2P_PAIR_SHIFT 2.0
#define PAS2P_PAIR_TAIL_MIN 3u
enum {
    PAS2P_PAIR_UNTYPICAL = 1, /* no base occurrence was typical: all pairs used */
    PAS2P_PAIR_SOME_TYPICAL = 2, /* some were not: left out */
    PAS2P_PAIR_AFTER_CHANGE = 4, /* the pairs before a change point left out */
    PAS2P_PAIR_CHANGE_PENDING = 8 /* a change point with fewer than PAS2P_PAIR_TAIL_MIN after
                                     it: all used, and more occurrences would settle it */
};
typedef struct {
    double ratio;       /* the median of the used pairs' target / base */
    double base_median; /* the median of their base times (s) */
    double rmin, rmax;  /* the least and greatest of their ratios */
    double before;      /* PAS2P_PAIR_AFTER_CHANGE: the median ratio of the pairs before it, */
    double before_s;    /* the sum of their target values (s), */
    unsigned before_n;  /* and how many */
    unsigned n, valid;  /* pairs given; of them with a base time and a value */
    unsigned used;      /* entered the median */
    unsigned from;      /* the first used one's index among the n given */
    unsigned how;       /* PAS2P_PAIR_* */
} pas2p_pairing_t;

/* the median of v[0..n), n > 0 (v sorted in place) */
static inline double pas2p_times_median(double *v, unsigned n)
{
    qsort(v, n, sizeof *v, pas2p_times_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* A phase's timed values v[0..n) are not steady yet, so one more is wanted: before any was
 * added for that (extended 0), their range is more than PAS2P_STEADY_RANGE x their median
 * (QE's FFT Alltoall: 3 values -75/+53 %); once extended, the last value moved their
 * median by more than PAS2P_STEADY_MOVE x it.  predict's stop (sigrun.c) and the real-MPI
 * replay (simbackend/replayer.c: a cg iteration replayed twice, 0.021 and 0.044 s, PET
 * +49 %) ask the same.  n < 2 or n > PAS2P_TIMES_MAX_VALUES: 0. */
#define PAS2P_STEADY_RANGE 0.5
#define PAS2P_STEADY_MOVE 0.05
static inline int pas2p_times_unsteady(const double *v, unsigned n, int extended)
{
    double w[PAS2P_TIMES_MAX_VALUES];
    if (n < 2 || n > PAS2P_TIMES_MAX_VALUES)
        return 0;
    memcpy(w, v, n * sizeof *v);
    double med = pas2p_times_median(w, n), range = w[n - 1] - w[0];
    if (!(med > 0))
        return 0;
    if (!extended)
        return range > PAS2P_STEADY_RANGE * med;
    memcpy(w, v, (n - 1) * sizeof *v); /* (the values before the last one) */
    double d = med - pas2p_times_median(w, n - 1);
    return (d < 0 ? -d : d) > PAS2P_STEADY_MOVE * med;
}

/* 0, *out filled; -1 when no pair is valid */
static inline int pas2p_times_pair(const double *tv, const double *bv, unsigned n, double typical,
                                   pas2p_pairing_t *out)
{
    double r[PAS2P_TIMES_MAX_VALUES], b[PAS2P_TIMES_MAX_VALUES], w[PAS2P_TIMES_MAX_VALUES];
    double pmin[PAS2P_TIMES_MAX_VALUES], pmax[PAS2P_TIMES_MAX_VALUES];
    double smin[PAS2P_TIMES_MAX_VALUES], smax[PAS2P_TIMES_MAX_VALUES];
    double tp[2][PAS2P_TIMES_MAX_VALUES], ts[2][PAS2P_TIMES_MAX_VALUES]; /* the same of tv */
    unsigned at[PAS2P_TIMES_MAX_VALUES], m = 0, t = 0, valid = 0;
    unsigned char ok[PAS2P_TIMES_MAX_VALUES], typ[PAS2P_TIMES_MAX_VALUES];
    memset(out, 0, sizeof *out);
    if (n > PAS2P_TIMES_MAX_VALUES)
        n = PAS2P_TIMES_MAX_VALUES;
    out->n = n;
    for (unsigned i = 0; i < n; i++) {
        ok[i] = bv[i] > 0 && tv[i] >= 0;
        typ[i] = ok[i] && typical > 0 && bv[i] * PAS2P_PAIR_TYPICAL >= typical &&
                 bv[i] <= PAS2P_PAIR_TYPICAL * typical;
        valid += ok[i];
        t += typ[i];
    }
    out->valid = valid;
    if (!valid)
        return -1;
    for (unsigned i = 0; i < n; i++) {
        if (!ok[i] || (t && !typ[i]))
            continue;
        r[m] = tv[i] / bv[i];
        b[m] = bv[i];
        at[m++] = i;
    }
    out->how = !(typical > 0) ? 0 : !t ? PAS2P_PAIR_UNTYPICAL : t < valid ? PAS2P_PAIR_SOME_TYPICAL : 0;
    for (unsigned i = 0; i < m; i++) {
        double x = tv[at[i]];
        pmin[i] = i && pmin[i - 1] < r[i] ? pmin[i - 1] : r[i];
        pmax[i] = i && pmax[i - 1] > r[i] ? pmax[i - 1] : r[i];
        tp[0][i] = i && tp[0][i - 1] < x ? tp[0][i - 1] : x;
        tp[1][i] = i && tp[1][i - 1] > x ? tp[1][i - 1] : x;
    }
    for (unsigned i = m; i-- > 0;) {
        double x = tv[at[i]];
        smin[i] = i + 1 < m && smin[i + 1] < r[i] ? smin[i + 1] : r[i];
        smax[i] = i + 1 < m && smax[i + 1] > r[i] ? smax[i + 1] : r[i];
        ts[0][i] = i + 1 < m && ts[0][i + 1] < x ? ts[0][i + 1] : x;
        ts[1][i] = i + 1 < m && ts[1][i + 1] > x ? ts[1][i + 1] : x;
    }
    /* (the target's own values must change as cleanly: a base occurrence that a hiccup made
     * twice the others is one ratio off, not the target changing pace; the CI's ASan suite
     * awaited a steady loop's occurrences for one) */
    unsigned lo = 0;
    for (unsigned k = m; k-- > 1;)
        if ((pmin[k - 1] > PAS2P_PAIR_SHIFT * smax[k] && tp[0][k - 1] > PAS2P_PAIR_SHIFT * ts[1][k]) ||
            (pmax[k - 1] * PAS2P_PAIR_SHIFT < smin[k] && tp[1][k - 1] * PAS2P_PAIR_SHIFT < ts[0][k])) {
            if (m - k >= PAS2P_PAIR_TAIL_MIN) {
                memcpy(w, r, k * sizeof *w);
                out->before = pas2p_times_median(w, k);
                for (unsigned i = 0; i < k; i++)
                    out->before_s += tv[at[i]];
                out->before_n = k;
                out->how |= PAS2P_PAIR_AFTER_CHANGE;
                lo = k;
            } else
                out->how |= PAS2P_PAIR_CHANGE_PENDING;
            break;
        }
    memcpy(w, r + lo, (m - lo) * sizeof *w);
    out->ratio = pas2p_times_median(w, m - lo);
    out->rmin = w[0];
    out->rmax = w[m - lo - 1];
    memcpy(w, b + lo, (m - lo) * sizeof *w);
    out->base_median = pas2p_times_median(w, m - lo);
    out->used = m - lo;
    out->from = at[lo];
    return 0;
}


#ifdef __cplusplus
}
#endif
#endif
