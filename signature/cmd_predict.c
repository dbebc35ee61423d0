/* `pas2p predict SIGNATURE.xml [options] -- LAUNCH...`: the real-target prediction.
 *
 * Runs the application on the target under its signature (libpas2p with the signature
 * sink, sigrun.c, loaded from PAS2P_SIGRUN_LIB), reads each rank's phase times, and
 * predicts with the PET module. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pas2p_launch.h"
#include "pas2p_pet.h"
#include "pas2p_signature.h"

static const char usage[] =
    "usage: pas2p predict SIGNATURE.xml [-o DIR] [--occurrences N] [--aet T] [--ignore-args]\n"
    "                     [--measure-end] -- LAUNCH...\n"
    "\n"
    "Runs the application on this (target) machine under its signature: every rank counts\n"
    "its MPI calls, checks them against the signature's phases, times the relevant phases'\n"
    "occurrences after the first (warm-up), and the run stops early, cleanly (exit 0), as\n"
    "soon as every rank is done and no message is in flight at an MPI_COMM_WORLD collective.\n"
    "Then PET = sum(PhaseET x W) + the remainder, from the target's phase times.\n"
    "\n"
    "  -o DIR           where the ranks' times go (default pas2p-predict-YYYYmmdd-HHMMSS)\n"
    "  --occurrences N  occurrences per phase the stop waits for, after the warm-up (default\n"
    "                   3, up to 31); later ones that complete before the stop are timed\n"
    "                   too; the phase's time is the median\n"
    "  --aet T          the application's measured time on this target (s): prints PETE\n"
    "  --ignore-args    run even if the program or its arguments differ from the signature's\n"
    "  --measure-end    also time a relevant phase that occurs once, at the very end\n"
    "                   (MPI_Finalize's): the run cannot stop early then.  By default such a\n"
    "                   phase is estimated as its base time x the rank's measured ratio\n"
    "                   (marked `estimated`)\n"
    "  LAUNCH           the same launch as traced, e.g. mpirun -np 4 ./app args\n"
    "\n"
    "Prints `PET = T s`, `SET = T s` (MPI_Init to the stop, slowest rank), `wall = T s`\n"
    "(the whole launch), the per-phase table, and with --aet `AET` and `PETE`; writes them to\n"
    "DIR/prediction.xml (`pas2p show` prints it).  A run that does not follow the signature\n"
    "(other np, input or binary) is stopped and reported.\n";

int pas2p_cmd_predict(int argc, char **argv)
{
    const char *sig_path = NULL, *dir = NULL;
    long occ = 3; /* odd: the median is a measured occurrence, one outlier cannot move it */
    double aet = 0;
    int ignore_args = 0, measure_end = 0, i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            i++;
            break;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(a, "-o") && i + 1 < argc) {
            dir = argv[++i];
        } else if (!strcmp(a, "--occurrences") && i + 1 < argc) {
            char *end;
            occ = strtol(argv[++i], &end, 10);
            if (*end || occ < 1 || occ > PAS2P_SIG_OCC - 1) {
                fprintf(stderr, "pas2p predict: --occurrences needs a number from 1 to %d (the "
                        "signature locates %d occurrences per phase, the first warms up)\n",
                        PAS2P_SIG_OCC - 1, PAS2P_SIG_OCC);
                return 2;
            }
        } else if (!strcmp(a, "--aet") && i + 1 < argc) {
            char *end;
            aet = strtod(argv[++i], &end);
            if (*end || !(aet > 0)) {
                fprintf(stderr, "pas2p predict: --aet needs a time in seconds > 0\n");
                return 2;
            }
        } else if (!strcmp(a, "--ignore-args")) {
            ignore_args = 1;
        } else if (!strcmp(a, "--measure-end")) {
            measure_end = 1;
        } else if (a[0] == '-' || sig_path) {
            fprintf(stderr, "pas2p predict: unexpected '%s' (the command goes after --; see --help)\n", a);
            return 2;
        } else {
            sig_path = a;
        }
    }
    if (!sig_path) {
        fprintf(stderr, "pas2p predict: no signature (usage: pas2p predict SIG.xml -- mpirun -np N ./app)\n");
        return 2;
    }
    if (i >= argc) {
        fprintf(stderr, "pas2p predict: no command to run (usage: pas2p predict SIG.xml -- mpirun -np N ./app)\n");
        return 2;
    }
    pas2p_signature_t sig;
    char err[2048];
    if (pas2p_signature_read(sig_path, &sig, err, sizeof err)) {
        fprintf(stderr, "pas2p predict: %s\n", err);
        return 2;
    }
    char lib[PATH_MAX], sigrun[PATH_MAX + 32], defdir[64], absdir[PATH_MAX], abssig[PATH_MAX], occs[16];
    int rc = 2;
    if (!dir) {
        pas2p_default_dir("pas2p-predict", defdir, sizeof defdir);
        dir = defdir;
    }
    if (pas2p_find_library("pas2p predict", lib, sizeof lib) ||
        pas2p_prepare_dir("pas2p predict", dir) || !realpath(dir, absdir) ||
        !realpath(sig_path, abssig))
        goto out;
    snprintf(occs, sizeof occs, "%ld", occ);
    setenv("PAS2P_SIGNATURE", abssig, 1);
    setenv("PAS2P_PREDICT_DIR", absdir, 1);
    setenv("PAS2P_OCCURRENCES", occs, 1);
    if (ignore_args)
        setenv("PAS2P_ARGS_CHECK", "0", 1);
    else
        unsetenv("PAS2P_ARGS_CHECK");
    setenv("PAS2P_MEASURE_END", measure_end ? "1" : "0", 1);
    setenv("PAS2P_PREDICT_REPORTS", "1", 1); /* a divergence is said once, by predict */
    const char *sr = getenv("PAS2P_SIGRUN_LIB"); /* the sink: beside libpas2p unless set */
    if (!sr || !*sr) {
        const char *slash = strrchr(lib, '/');
        snprintf(sigrun, sizeof sigrun, "%.*slibpas2p-sigrun.so", slash ? (int)(slash - lib + 1) : 0, lib);
        setenv("PAS2P_SIGRUN_LIB", sigrun, 1);
    }
    static const char *const xs[] = {"PAS2P_SIGNATURE", "PAS2P_PREDICT_DIR", "PAS2P_OCCURRENCES",
                                      "PAS2P_ARGS_CHECK", "PAS2P_MEASURE_END", "PAS2P_QUIET",
                                      "PAS2P_PREDICT_REPORTS", "PAS2P_TIME_BUDGET",
                                      "PAS2P_SIGRUN_LIB"};
    double w0 = pas2p_mono_s();
    /* the runtime's own aborts are predict's to report: their banners are not shown */
    static const int codes[] = {PAS2P_STOP_CODE, PAS2P_DIVERGED_CODE};
    int code = pas2p_launch_hiding_abort("pas2p predict", lib, argv + i, argc - i, xs,
                                         sizeof xs / sizeof *xs, codes, 2);
    /* the runtime ended the job itself once every rank's times were safe on rank 0 */
    int forced = code == PAS2P_STOP_CODE;
    double wall = pas2p_mono_s() - w0;
    if (code == 127)
        goto out;

    /* every rank's times: a divergence anywhere is the answer */
    double **target = calloc(sig.nranks, sizeof *target);
    pas2p_times_t *st = calloc(sig.nranks, sizeof *st);
    if (!target || !st) {
        fprintf(stderr, "pas2p predict: out of memory\n");
        goto free_out;
    }
    int missing = -1, stopped = 1;
    double set = 0;
    for (uint32_t r = 0; r < sig.nranks; r++) {
        const pas2p_sig_rank_t *R = &sig.ranks[r];
        target[r] = calloc(R->nphases ? R->nphases : 1, sizeof **target);
        if (!target[r])
            goto free_out;
        if (pas2p_times_read(absdir, R, target[r], &st[r], err, sizeof err)) {
            if (missing < 0)
                missing = (int)r;
            continue;
        }
        if (st[r].status == 3) {
            fprintf(stderr, "pas2p predict: rank %u: %s\n", R->rank, st[r].reason);
            rc = 1;
            goto free_out;
        }
        stopped &= st[r].status == 1;
        if (st[r].set_s > set)
            set = st[r].set_s;
    }
    if (forced && (missing >= 0 || !stopped)) {
        fprintf(stderr, "pas2p predict: the job was ended by its signature runtime, but %s\n",
                missing >= 0 ? err : "not every rank's times say it stopped");
        rc = 1;
        goto free_out;
    }
    if (missing >= 0 && code == PAS2P_DIVERGED_CODE) {
        fprintf(stderr, "pas2p predict: the run diverged from the signature on a rank whose "
                "times file is not here (%s): its reason is in that file on its node\n", err);
        rc = 1;
        goto free_out;
    }
    if (missing >= 0) {
        fprintf(stderr, "pas2p predict: %s (the run failed%s, exit status %d)\n", err,
                code ? "" : " or did not load libpas2p", code);
        rc = code ? code : 1;
        goto free_out;
    }
    pas2p_prediction_t res;
    memset(&res, 0, sizeof res);
    if (pas2p_pet_compute(&sig, (const double *const *)target, set, aet, &res.pet, err, sizeof err)) {
        fprintf(stderr, "pas2p predict: %s\n", err);
        rc = 1;
        goto free_out;
    }
    pas2p_prediction_begin(&res, "predict", abssig, &sig, wall);
    pas2p_join_argv(res.target, sizeof res.target, argv + i, argc - i);
    snprintf(res.stop, sizeof res.stop, "%s",
             forced    ? "early (guaranteed: every rank measured, times gathered on rank 0, the job "
                         "ended by pas2p)"
             : stopped ? "early (all ranks agreed, nothing in flight)"
                       : "none: ran to MPI_Finalize");
    if (!stopped) { /* the rank whose measurements ended latest says what kept the run going */
        uint32_t late = 0;
        double late_f = -1;
        for (uint32_t r = 0; r < sig.nranks; r++) {
            double f = st[r].events ? (double)st[r].done_at / (double)st[r].events : 1;
            if (st[r].status == 2 && f > late_f) {
                late_f = f;
                late = r;
            }
        }
        snprintf(res.note, sizeof res.note, "rank %u %.1000s", sig.ranks[late].rank, st[late].reason);
    }
    char xml[PATH_MAX + 32];
    snprintf(xml, sizeof xml, "%.4000s/prediction.xml", absdir);
    if (pas2p_prediction_write(&res, xml, err, sizeof err)) {
        fprintf(stderr, "pas2p predict: %s\n", err);
        pas2p_prediction_free(&res);
        rc = 1;
        goto free_out;
    }
    printf("results = %s\n", dir);
    printf("prediction = %s/prediction.xml\n", dir);
    pas2p_prediction_print(&res, stdout);
    pas2p_prediction_free(&res);
    rc = forced ? 0 : code;
    if (rc)
        fprintf(stderr, "pas2p predict: the launcher exited with status %d\n", code);
free_out:
    for (uint32_t r = 0; target && r < sig.nranks; r++)
        free(target[r]);
    free(target);
    free(st);
out:
    pas2p_signature_free(&sig);
    return rc;
}
