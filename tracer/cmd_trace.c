/* `pas2p trace [-o DIR] [--counters LIST] [--buffer SIZE] [--runs N] -- LAUNCH...`
 *
 * Runs LAUNCH with libpas2p preloaded in every rank: for Open MPI's launchers the library
 * and settings are passed with `-x` (so remote nodes get them too); any other launcher
 * (or a singleton ./app) gets them through the environment.  The application's exit
 * status is passed through.  With --runs N the application is traced N times, each run
 * into DIR/run-K, and the run whose AET is the median becomes DIR (on a noisy machine
 * one run can be 20-60 % off; everything measured from the trace inherits it); the others
 * stay in DIR/run-K, whose phase times pas2p analyze pools (analyzer/analyze.c). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <papi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pas2p_cli.h"
#include "pas2p_launch.h"
#include "pas2p_trace.h"

static const char usage[] =
    "usage: pas2p trace [-o DIR] [--counters LIST] [--buffer SIZE] [--runs N] -- LAUNCH...\n"
    "\n"
    "Runs an MPI application with libpas2p interposed on every rank and writes its trace\n"
    "to DIR: one binary file per rank and a manifest (see tracer/FORMAT.md).\n"
    "\n"
    "  -o DIR           trace directory; must not exist or be empty\n"
    "                   (default: pas2p-trace-YYYYmmdd-HHMMSS)\n"
    "  --counters LIST  comma-separated PAPI events recorded per event (default PAPI_TOT_INS;\n"
    "                   'none' for time only). Machines without counters trace time only.\n"
    "  --buffer SIZE    per-rank buffer written when full, e.g. 1M (default 256K)\n"
    "  --runs N         trace the application N times (default 1) and keep the run whose\n"
    "                   AET is the median (the lower of the two middle ones when N is\n"
    "                   even): on a noisy machine one run can be far from typical, and the\n"
    "                   signature and every prediction from it inherit that run's time.\n"
    "                   The median is over the runs whose ranks made the same numbers of\n"
    "                   events as the most runs did: a run that took another path (work\n"
    "                   that follows timing) is not kept, whatever its AET.\n"
    "                   Each run's AET is said as it ends and recorded in the manifest\n"
    "                   (aet_runs, kept_run); the first run that fails stops the rest.\n"
    "                   The other runs stay in DIR/run-K: pas2p analyze DIR pools their\n"
    "                   phases' times, and predict pairs the target's occurrences with\n"
    "                   their medians (one run's early occurrences carry its noise)\n"
    "  LAUNCH           e.g. mpirun -np 4 ./app args  (or a singleton ./app)\n"
    "\n"
    "Prints `trace = DIR`, `np`, `events` and `AET` when the run ends; exits with the\n"
    "application's status.\n";

#define MAX_RUNS 99

static int check_counters(const char *list)
{
    if (!strcmp(list, "none"))
        return 0;
    int rc = PAPI_library_init(PAPI_VER_CURRENT);
    if (rc != PAPI_VER_CURRENT) {
        pas2p_err("trace", "PAPI unavailable (%s); use --counters none",
                  rc < 0 ? PAPI_strerror(rc) : "version mismatch");
        return -1;
    }
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", list);
    int n = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int code;
        if (++n > PAS2P_MAX_COUNTERS) {
            pas2p_err("trace", "at most %d counters", PAS2P_MAX_COUNTERS);
            return -1;
        }
        if (strlen(t) >= PAS2P_COUNTER_NAME_LEN || PAPI_event_name_to_code(t, &code) != PAPI_OK) {
            pas2p_err("trace", "unknown counter '%s' (see papi_avail)", t);
            return -1;
        }
    }
    return 0;
}

/* One traced run of the launch into absdir (PAS2P_TRACE_DIR; the other settings are in the
 * environment already).  0 with *m read, or the exit status after the error (said with
 * `shown`, the directory as the user named it, and `which`, "" or " (run K of N)"). */
static int trace_once(const char *lib, char **launch, int nlaunch, const char *absdir,
                      const char *shown, const char *which, pas2p_manifest_t *m, int *app_code)
{
    static const char *const xs[] = {"PAS2P_TRACE_DIR", "PAS2P_COMMAND", "PAS2P_COUNTERS",
                                     "PAS2P_BUFFER_SIZE", "PAS2P_QUIET"};
    setenv("PAS2P_TRACE_DIR", absdir, 1);
    pas2p_launch_info_t li;
    int code = pas2p_launch_info("pas2p trace", lib, launch, nlaunch, xs, sizeof xs / sizeof *xs,
                                 &li);
    *app_code = code;
    if (code == 127)
        return 127;
    char err[1024], rank0[PATH_MAX], prog[PATH_MAX];
    if (pas2p_manifest_read(absdir, m, err, sizeof err)) {
        pas2p_rank_path(absdir, 0, rank0, sizeof rank0);
        char sp[PATH_MAX + 16];
        snprintf(sp, sizeof sp, "%s/" PAS2P_SPAWNED, absdir);
        if (!access(sp, F_OK)) /* MPI_Comm_spawn: the reader's reason, whatever the status */
            pas2p_err("trace", "%s", err);
        else if (access(rank0, F_OK) && code &&
                 pas2p_launch_mpich_program(launch, nlaunch, prog, sizeof prog))
            pas2p_err("trace", "no trace in %s%s: the launch failed (exit status %d): %s is "
                      "linked to MPICH (ldd: libmpich), and pas2p works with Open MPI: an "
                      "application built with Open MPI (mpicc.openmpi), launched with its "
                      "mpirun", shown, which, code, prog);
        else if (access(rank0, F_OK) && code)
            pas2p_err("trace", "no trace in %s%s: the launch failed (exit status %d; its "
                      "message above) before any rank called MPI_Init with libpas2p", shown,
                      which, code);
        else if (access(rank0, F_OK))
            pas2p_err("trace", "no trace in %s%s: no rank called MPI_Init with libpas2p "
                      "(not an MPI program, or the launcher dropped LD_PRELOAD)", shown, which);
        else
            pas2p_err("trace", "incomplete trace in %s%s: no manifest (the run %s; see the "
                      "errors above); rank files are kept", shown, which,
                      code ? "failed" : "did not reach MPI_Finalize, or could not write");
        return code ? code : PAS2P_EXIT_FAIL;
    }
    if (!m->complete) {
        pas2p_err("trace", "incomplete trace in %s%s: some ranks could not write their files "
                  "(see the errors above)", shown, which);
        pas2p_manifest_free(m);
        return code ? code : PAS2P_EXIT_FAIL;
    }
    if (code && li.no_sync) { /* every rank wrote its file at MPI_Finalize: Open MPI's race */
        char note[512];
        pas2p_launch_no_sync_note(note, sizeof note, code, "its trace");
        fprintf(stderr, "pas2p trace: note%s: %s\n", which, note);
        *app_code = 0;
    } else if (code && li.signaled) { /* the launcher's own teardown crashed (Open MPI 4.1) */
        char note[512];
        pas2p_launch_signal_note(note, sizeof note, li.signaled, "its trace");
        fprintf(stderr, "pas2p trace: note%s: %s\n", which, note);
        *app_code = 0;
    }
    return 0;
}

/* empties run directory `run` (a trace: flat files only) and removes it: its files are
 * moved into `into`, or deleted when `into` is NULL.  0, or -1 with errno */
static int clear_run(const char *run, const char *into)
{
    DIR *d = opendir(run);
    if (!d)
        return -1;
    struct dirent *e;
    char from[PATH_MAX + 300], to[PATH_MAX + 300];
    int rc = 0;
    while (!rc && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(from, sizeof from, "%s/%s", run, e->d_name);
            if (into)
                snprintf(to, sizeof to, "%s/%s", into, e->d_name);
            rc = into ? rename(from, to) : unlink(from);
        }
    closedir(d);
    return rc || rmdir(run) ? -1 : 0;
}

/* the index of the median of v[i] over the runs i with in[i] (the lower middle one when
 * their number is even) */
static int median_index(const double *v, const int *in, int n)
{
    int m = 0;
    for (int k = 0; k < n; k++)
        m += in[k];
    for (int i = 0; i < n; i++) {
        if (!in[i])
            continue;
        int below = 0, same_before = 0;
        for (int k = 0; k < n; k++) {
            below += in[k] && v[k] < v[i];
            same_before += in[k] && k < i && v[k] == v[i];
        }
        if (below + same_before == (m - 1) / 2)
            return i;
    }
    return 0;
}

static void free_runs(uint64_t **ev, int n)
{
    for (int k = 0; k < n; k++)
        free(ev[k]);
}

/* The runs the median is taken over: those whose ranks wrote the same numbers of events as
 * the most other runs' did, when at least two runs agree and no other count is as common.
 * A program whose work follows timing (rheolef's solver skipped an exchange in one of three
 * runs) can make one run that is a different program path: kept because its AET was the
 * median, its signature is of that path, and every predict run diverges at the first call
 * it lacks.  Polling programs (every run a different number of failed polls) have no two
 * runs alike: all runs count then.  ev[k] holds run k's np counts.  Returns how many runs
 * are in. */
static int same_counts(uint64_t *const *ev, const int *np, int a, int b)
{
    return np[a] == np[b] && ev[a] && ev[b] && !memcmp(ev[a], ev[b], (size_t)np[a] * sizeof **ev);
}

static int same_shape_runs(uint64_t *const *ev, const int *np, int n, int *in)
{
    int best = 0, best_k = 0, tie = 0;
    for (int k = 0; k < n; k++) {
        int c = 0;
        for (int j = 0; j < n; j++)
            c += same_counts(ev, np, j, k);
        if (c > best) {
            best = c;
            best_k = k;
            tie = 0;
        } else if (c == best && !same_counts(ev, np, k, best_k)) {
            tie = 1;
        }
    }
    int m = 0;
    for (int k = 0; k < n; k++)
        m += in[k] = best < 2 || tie || same_counts(ev, np, k, best_k);
    return m;
}

int pas2p_cmd_trace(int argc, char **argv)
{
    const char *dir = NULL, *counters = getenv("PAS2P_COUNTERS"), *buffer = NULL;
    long runs = 1;
    const pas2p_opt_t opts[] = {
        {.name = "-o", .kind = PAS2P_OPT_STRING, .dst = &dir, .what = "a directory"},
        {.name = "--counters", .kind = PAS2P_OPT_STRING, .dst = &counters,
         .what = "a comma-separated list of PAPI events, or none"},
        {.name = "--buffer", .kind = PAS2P_OPT_STRING, .dst = &buffer, .what = "a size, e.g. 1M"},
        {.name = "--runs", .kind = PAS2P_OPT_LONG, .dst = &runs, .min = 1, .max = MAX_RUNS,
         .what = "a whole number of runs, 1 to 99"},
    };
    const pas2p_cli_t cli = {.cmd = "trace", .usage = usage, .opts = opts,
                             .nopts = sizeof opts / sizeof *opts, .dashdash = 1};
    pas2p_args_t a;
    int rc = pas2p_cli_parse(&cli, argc, argv, &a);
    if (rc)
        return rc == PAS2P_CLI_HELP ? 0 : rc;
    int i = a.rest;
    if (i >= argc) {
        pas2p_err("trace", "no command to run (usage: pas2p trace [-o DIR] -- mpirun -np N ./app)");
        return PAS2P_EXIT_USAGE;
    }
    char **launch = argv + i;
    int nlaunch = argc - i;

    char defdir[64], absdir[PATH_MAX];
    if (!dir) {
        pas2p_default_dir("pas2p-trace", defdir, sizeof defdir);
        dir = defdir;
    }
    if (counters && *counters && check_counters(counters))
        return PAS2P_EXIT_USAGE;
    char lib[PATH_MAX];
    if (pas2p_find_library("pas2p trace", lib, sizeof lib))
        return 2;
    if (pas2p_prepare_dir("pas2p trace", dir))
        return 2;
    if (!realpath(dir, absdir)) {
        pas2p_err("trace", "%s: %s", dir, strerror(errno));
        return PAS2P_EXIT_USAGE;
    }

    /* the command line recorded in the manifest */
    size_t cl = 0;
    char cmd[4096] = "";
    for (int k = 0; k < nlaunch && cl < sizeof cmd; k++)
        cl += (size_t)snprintf(cmd + cl, sizeof cmd - cl, "%s%s", k ? " " : "", launch[k]);
    setenv("PAS2P_COMMAND", cmd, 1);
    if (counters && *counters)
        setenv("PAS2P_COUNTERS", counters, 1);
    if (buffer)
        setenv("PAS2P_BUFFER_SIZE", buffer, 1);

    pas2p_manifest_t m;
    int code = 0;
    if (runs == 1) {
        int rc = trace_once(lib, launch, nlaunch, absdir, dir, "", &m, &code);
        if (rc)
            return rc;
    } else {
        /* each run in DIR/run-K; the median one's files become DIR's */
        double aet[MAX_RUNS];
        uint64_t *ev[MAX_RUNS] = {0};
        int evn[MAX_RUNS] = {0}, in[MAX_RUNS];
        char run[PATH_MAX + 32], shown[PATH_MAX + 32], which[64];
        for (int k = 0; k < runs; k++) {
            snprintf(run, sizeof run, "%s/run-%d", absdir, k + 1);
            snprintf(shown, sizeof shown, "%s/run-%d", dir, k + 1);
            snprintf(which, sizeof which, " (run %d of %ld)", k + 1, runs);
            if (pas2p_prepare_dir("pas2p trace", run)) {
                free_runs(ev, k);
                return 2;
            }
            int rc = trace_once(lib, launch, nlaunch, run, shown, which, &m, &code);
            if (!rc && code) { /* a trace, but the application failed: no median of that */
                pas2p_err("trace", "run %d of %ld: the application exited with status %d; "
                          "its trace is in %s, the runs before it in %s/run-*",
                          k + 1, runs, code, shown, dir);
                pas2p_manifest_free(&m);
                free_runs(ev, k);
                return code;
            }
            if (rc) {
                free_runs(ev, k);
                return rc;
            }
            aet[k] = m.aet_s;
            evn[k] = m.np;
            ev[k] = m.np > 0 ? malloc((size_t)m.np * sizeof **ev) : NULL;
            if (ev[k] && m.events_per_rank)
                memcpy(ev[k], m.events_per_rank, (size_t)m.np * sizeof **ev);
            else if (ev[k])
                memset(ev[k], 0, (size_t)m.np * sizeof **ev);
            fprintf(stderr, "pas2p trace: run %d of %ld: AET %.6f s, %llu events\n", k + 1, runs,
                    aet[k], (unsigned long long)m.events);
            pas2p_manifest_free(&m);
        }
        int alike = same_shape_runs(ev, evn, (int)runs, in);
        free_runs(ev, (int)runs);
        int keep = median_index(aet, in, (int)runs);
        /* the other runs stay in DIR/run-K: pas2p analyze pools their phase times */
        snprintf(run, sizeof run, "%s/run-%d", absdir, keep + 1);
        if (clear_run(run, absdir)) {
            pas2p_err("trace", "cannot move %s/run-%d's files into %s: %s", dir, keep + 1, dir,
                      strerror(errno));
            return PAS2P_EXIT_FAIL;
        }
        /* every run's AET in the manifest (readers ignore keys they do not know) */
        char mpath[PATH_MAX + 32];
        snprintf(mpath, sizeof mpath, "%s/manifest", absdir);
        FILE *f = fopen(mpath, "a");
        int bad = !f;
        if (f) {
            fprintf(f, "aet_runs = ");
            for (int k = 0; k < runs; k++)
                fprintf(f, "%s%.9f", k ? "," : "", aet[k]);
            fprintf(f, "\nkept_run = %d\n", keep + 1);
            bad = ferror(f) | fclose(f);
        }
        if (bad) {
            pas2p_err("trace", "%s/manifest: cannot record the runs' AETs: %s", dir,
                      strerror(errno));
            return PAS2P_EXIT_FAIL;
        }
        char err[1024];
        if (pas2p_manifest_read(absdir, &m, err, sizeof err)) {
            pas2p_err("trace", "%s", err);
            return PAS2P_EXIT_FAIL;
        }
        if (alike < runs)
            fprintf(stderr, "pas2p trace: kept run %d of %ld (AET %.6f s, the median of the %d "
                    "runs whose ranks made the same numbers of events; the other %ld made other "
                    "numbers: another path through the program)\n", keep + 1, runs, aet[keep],
                    alike, runs - alike);
        else
            fprintf(stderr, "pas2p trace: kept run %d of %ld (AET %.6f s, the median)\n",
                    keep + 1, runs, aet[keep]);
    }
    printf("trace = %s\n", dir);
    printf("np = %d\n", m.np);
    printf("events = %llu\n", (unsigned long long)m.events);
    printf("AET = %.6f s\n", m.aet_s);
    /* a rank that got well under a core while it computed: every time in the trace
     * carries it */
    char note[512];
    if (pas2p_manifest_shared_note(&m, note, sizeof note))
        fprintf(stderr, "pas2p trace: note: %s\n", note);
    if (pas2p_manifest_untraced_note(&m, note, sizeof note))
        fprintf(stderr, "pas2p trace: note: %s\n", note);
    if (code)
        pas2p_err("trace", "the application exited with status %d", code);
    pas2p_manifest_free(&m);
    return code;
}
