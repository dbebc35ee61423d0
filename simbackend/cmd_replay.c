/* `pas2p replay`: the signature as a portable benchmark.  Its relevant phases become
 * actions (actions.c), replayed with real MPI on the target by bin/pas2p-replayer
 * (replayer.c built with mpicc), timed, and turned into the prediction by the PET module;
 * or (--export) written as SimGrid time-independent traces for anyone with SimGrid. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pas2p_launch.h"
#include "pas2p_pet.h"
#include "pas2p_platform.h"
#include "pas2p_sim.h"

static const char usage[] =
    "usage: pas2p replay SIGNATURE.xml [-o DIR] [--compute kernel|sleep] [--reps N] [--aet T]\n"
    "                    [--relative BASE_DIR] -- LAUNCHER...\n"
    "       pas2p replay SIGNATURE.xml --export DIR [--base-speed F]\n"
    "\n"
    "Runs the signature's relevant phases on this (target) machine as real MPI, without the\n"
    "application: each rank issues the recorded calls (same peers, tags, sizes,\n"
    "communicators, non-blocking pairs, collectives; simbackend/ACTIONS.md), each phase\n"
    "--reps times after a barrier, the first warming up (its messages only).  PET comes from the same equation as\n"
    "`pas2p predict`.  LAUNCHER is the MPI launch without a program, e.g. `mpirun -np 4`:\n"
    "pas2p appends its replayer.  np must be the signature's.\n"
    "\n"
    "  --compute kernel   computation runs a compute kernel calibrated on the base machine\n"
    "                     (tracer/pas2p_kernel.h) to take the recorded time there: the\n"
    "                     target's core speed enters, as for a compute-bound, cache-resident\n"
    "                     code (default)\n"
    "  --compute sleep    computation keeps its base time (a timed wait): only the network\n"
    "                     and the MPI library of the target are measured\n"
    "  --reps N           replays of each phase (default 3, 1-16), the first a warm-up of\n"
    "                     its messages without its computation; a phase of weight 1 once,\n"
    "                     cold, as the application ran it\n"
    "  --aet T            the application's measured time on this target (s): prints PETE\n"
    "  --relative BASE_DIR  BASE_DIR holds a replay of the same signature on the base machine\n"
    "                     (its -o DIR, same --compute): each phase's target time is then its\n"
    "                     base PhaseET x (time here / time there), so what the replay models\n"
    "                     wrongly on both machines (the kernel against the application's own\n"
    "                     computation, the replayer's overheads) cancels out\n"
    "  -o DIR             results (default pas2p-replay-YYYYmmdd-HHMMSS): actions/,\n"
    "                     rank-*.times, prediction.xml\n"
    "  --export DIR       write the phases as SimGrid SMPI time-independent traces instead\n"
    "                     (one trace set per phase, weights.csv, run.sh; see DIR/README):\n"
    "                     nothing is run\n"
    "  --base-speed F     with --export: flop/s that one base second of computation becomes\n"
    "                     (default 1Gf: replay on hosts of that speed keeps base time)\n"
    "\n"
    "Prints `PET = T s`, `SET = T s` (the replay, slowest rank), `wall = T s` (the whole\n"
    "launch) and the per-phase table; writes them to DIR/prediction.xml.\n";

/* the np a launcher's -np/-n/--np/-c option asks for, or 0 when it does not say */
static long launch_np(char **argv, int n)
{
    for (int k = 1; k + 1 < n; k++)
        if (!strcmp(argv[k], "-np") || !strcmp(argv[k], "-n") || !strcmp(argv[k], "--np") ||
            !strcmp(argv[k], "-c") || !strcmp(argv[k], "--n")) {
            char *end;
            long v = strtol(argv[k + 1], &end, 10);
            return *end ? 0 : v;
        }
    return 0;
}

static int export_ti(const pas2p_signature_t *sig, const char *sig_path, const char *dir,
                     double speed)
{
    char err[4400];
    if (pas2p_prepare_dir("pas2p replay", dir))
        return 2;
    if (pas2p_actions_export_ti(sig, dir, speed, err, sizeof err)) {
        fprintf(stderr, "pas2p replay: %s\n", err);
        return 1;
    }
    printf("exported = %s\nsignature = %s\nbase speed = %.6g flop/s\n", dir, sig_path, speed);
    printf("run with: %s/run.sh PLATFORM.xml [HOSTFILE]\n", dir);
    return 0;
}

#define KERNEL_MODE "the calibrated kernel"
#define SLEEP_MODE "a timed wait"

int pas2p_cmd_replay(int argc, char **argv)
{
    const char *sig_path = NULL, *dir = NULL, *export_dir = NULL, *rel = NULL;
    int kernel = 1, i = 1;
    long reps = 3;
    double aet = 0, speed = 1e9;
    for (; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "--")) {
            i++;
            break;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(a, "-o") && more) {
            dir = argv[++i];
        } else if (!strcmp(a, "--relative") && more) {
            rel = argv[++i];
        } else if (!strcmp(a, "--export") && more) {
            export_dir = argv[++i];
        } else if ((!strcmp(a, "--compute") && more) || !strncmp(a, "--compute=", 10)) {
            const char *m = a[9] == '=' ? a + 10 : argv[++i];
            if (strcmp(m, "kernel") && strcmp(m, "sleep")) {
                fprintf(stderr, "pas2p replay: --compute is kernel or sleep, not '%s'\n", m);
                return 2;
            }
            kernel = !strcmp(m, "kernel");
        } else if (!strcmp(a, "--reps") && more) {
            char *end;
            reps = strtol(argv[++i], &end, 10);
            if (*end || reps < 1 || reps > 16) {
                fprintf(stderr, "pas2p replay: --reps needs a number from 1 to 16\n");
                return 2;
            }
        } else if (!strcmp(a, "--aet") && more) {
            char *end;
            aet = strtod(argv[++i], &end);
            if (*end || !(aet > 0)) {
                fprintf(stderr, "pas2p replay: --aet needs a time in seconds > 0\n");
                return 2;
            }
        } else if (!strcmp(a, "--base-speed") && more) {
            speed = pas2p_parse_speed(argv[++i]);
            if (!(speed > 0)) {
                fprintf(stderr, "pas2p replay: --base-speed needs a speed such as 2.5Gf, not '%s'\n", argv[i]);
                return 2;
            }
        } else if (a[0] == '-' || sig_path) {
            fprintf(stderr, "pas2p replay: unexpected '%s' (the launcher goes after --; see --help)\n", a);
            return 2;
        } else {
            sig_path = a;
        }
    }
    if (!sig_path) {
        fprintf(stderr, "pas2p replay: no signature (usage: pas2p replay SIG.xml -- mpirun -np N)\n");
        return 2;
    }
    if (!export_dir && i >= argc) {
        fprintf(stderr, "pas2p replay: no launcher (usage: pas2p replay SIG.xml -- mpirun -np N)\n");
        return 2;
    }
    if (export_dir && rel) {
        fprintf(stderr, "pas2p replay: --relative needs a replay to compare, --export runs nothing\n");
        return 2;
    }
    if (export_dir && i < argc) {
        fprintf(stderr, "pas2p replay: --export runs nothing: drop the launcher after --\n");
        return 2;
    }
    pas2p_signature_t sig;
    char err[4400];
    if (pas2p_signature_read(sig_path, &sig, err, sizeof err)) {
        fprintf(stderr, "pas2p replay: %s\n", err);
        return 2;
    }
    int rc = 2;
    if (export_dir) {
        rc = export_ti(&sig, sig_path, export_dir, speed);
        goto out;
    }
    long np = launch_np(argv + i, argc - i);
    if (np && np != (long)sig.np) {
        fprintf(stderr, "pas2p replay: the signature is of a %u-rank run, the launcher asks for "
                "%ld: launch with -np %u\n", sig.np, np, sig.np);
        goto out;
    }
    if (rel && pas2p_prediction_check_base(rel, "replay", sig_path, kernel ? KERNEL_MODE : SLEEP_MODE,
                                           err, sizeof err)) {
        fprintf(stderr, "pas2p replay: %s\n", err);
        goto out;
    }
    const pas2p_sig_rank_t *uncal = kernel ? pas2p_signature_uncalibrated(&sig) : NULL;
    if (uncal) {
        fprintf(stderr, "pas2p replay: %s: rank %u has no kernel calibration (traced with "
                "PAS2P_CALIBRATE_MS=0 or by an older pas2p): trace again, or use --compute sleep\n",
                sig_path, uncal->rank);
        goto out;
    }
    char replayer[PATH_MAX], defdir[64], absdir[PATH_MAX], actdir[PATH_MAX + 16];
    if (pas2p_find_beside("PAS2P_REPLAYER", "pas2p-replayer", replayer, sizeof replayer) ||
        access(replayer, X_OK)) {
        fprintf(stderr, "pas2p replay: the replayer %s is missing (build pas2p with MPI; or set "
                "PAS2P_REPLAYER)\n", replayer);
        goto out;
    }
    if (!dir) {
        pas2p_default_dir("pas2p-replay", defdir, sizeof defdir);
        dir = defdir;
    }
    if (pas2p_prepare_dir("pas2p replay", dir) || !realpath(dir, absdir))
        goto out;
    snprintf(actdir, sizeof actdir, "%s/actions", absdir);
    if (mkdir(actdir, 0755) && errno != EEXIST) {
        fprintf(stderr, "pas2p replay: %s: %s\n", actdir, strerror(errno));
        goto out;
    }
    if (pas2p_actions_from_signature(&sig, actdir, err, sizeof err)) {
        fprintf(stderr, "pas2p replay: %s\n", err);
        rc = 1;
        goto out;
    }
    if (err[0]) /* the phases were aligned to the representative's */
        fprintf(stderr, "pas2p replay: note: %s\n", err);

    /* the launcher, then the replayer and its arguments */
    int nl = argc - i;
    char **launch = calloc((size_t)nl + 6, sizeof *launch), repss[16];
    if (!launch) {
        fprintf(stderr, "pas2p replay: out of memory\n");
        goto out;
    }
    snprintf(repss, sizeof repss, "%ld", reps);
    memcpy(launch, argv + i, (size_t)nl * sizeof *launch);
    launch[nl] = replayer;
    launch[nl + 1] = actdir;
    launch[nl + 2] = absdir;
    launch[nl + 3] = repss;
    launch[nl + 4] = kernel ? "kernel" : "sleep";
    static const char *const xs[] = {"PAS2P_QUIET"};
    if (!getenv("PAS2P_QUIET") || !*getenv("PAS2P_QUIET"))
        fprintf(stderr, "pas2p replay: %u ranks replaying %s's relevant phases (compute: %s)\n",
                sig.np, sig_path, kernel ? "kernel" : "sleep");
    double w0 = pas2p_mono_s();
    int code = pas2p_launch("pas2p replay", NULL, launch, nl + 5, xs, 1);
    double wall = pas2p_mono_s() - w0;
    free(launch);
    if (code) {
        if (code != 127)
            fprintf(stderr, "pas2p replay: the replay failed (launcher exit status %d)\n", code);
        rc = 1;
        goto out;
    }
    pas2p_prediction_t res;
    memset(&res, 0, sizeof res);
    char why[512] = "", xml[PATH_MAX + 32];
    snprintf(xml, sizeof xml, "%s/replay.error", absdir);
    FILE *ef = fopen(xml, "r");
    if (ef) { /* the replayer refused (wrong np): its one line */
        if (!fgets(why, sizeof why, ef))
            why[0] = 0;
        fclose(ef);
        why[strcspn(why, "\n")] = 0;
        fprintf(stderr, "pas2p replay: %s\n", why[0] ? why : "the replayer refused to run");
        rc = 1;
        goto out;
    }
    if (pas2p_pet_from_times(&sig, absdir, rel, aet, &res.pet, err, sizeof err)) {
        fprintf(stderr, "pas2p replay: %s (did the launcher run the replayer?)\n", err);
        rc = 1;
        goto out;
    }
    pas2p_prediction_begin(&res, "replay", sig_path, &sig, wall);
    pas2p_join_argv(res.target, sizeof res.target, argv + i, argc - i);
    snprintf(res.stop, sizeof res.stop, "replayed: %ld replay(s) of each relevant phase (one of a phase of weight 1), "
             "computation as %s%s%.300s", reps, kernel ? KERNEL_MODE : SLEEP_MODE,
             rel ? ", relative to the base replay in " : "", rel ? rel : "");
    snprintf(xml, sizeof xml, "%s/prediction.xml", absdir);
    if (pas2p_prediction_write(&res, xml, err, sizeof err)) {
        fprintf(stderr, "pas2p replay: %s\n", err);
        rc = 1;
    } else {
        printf("results = %s\nprediction = %s/prediction.xml\n", dir, dir);
        pas2p_prediction_print(&res, stdout);
        rc = 0;
    }
    pas2p_prediction_free(&res);
out:
    pas2p_signature_free(&sig);
    return rc;
}
