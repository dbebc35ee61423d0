/* The replay backend of the pipeline (signature/pas2p_pipeline.h): the signature's
 * relevant phases as actions (actions.c), replayed with real MPI on this machine by
 * bin/pas2p-replayer (replayer.c built with mpicc) appended to the given launcher. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pas2p_launch.h"
#include "pas2p_sim.h"

#define KERNEL_MODE "the calibrated kernel"
#define SLEEP_MODE "a timed wait"

typedef struct {
    char replayer[PATH_MAX];
    char actdir[PATH_MAX + 64];
    int no_sync_code;    /* the launcher's status, kept for verify(): it said a rank "with
                            PID 0" exited improperly (pas2p_launch_info_t), or was itself
                            killed by a signal, 0 otherwise */
    int signaled;        /* that signal (0: the "PID 0" banner) */
} replay_state_t;

/* the np a launcher's -np/-n/--np/-c option asks for, or 0 when it does not say */
static long launch_np(char *const *argv, int n)
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

static void mode(const pas2p_run_t *run, char *out, size_t len)
{
    const pas2p_replay_opts_t *o = run->bopts;
    snprintf(out, len, "%s", o->kernel ? KERNEL_MODE : SLEEP_MODE);
}

static int check(pas2p_run_t *run, char *err, size_t errlen)
{
    const pas2p_replay_opts_t *o = run->bopts;
    const pas2p_signature_t *sig = run->sig;
    replay_state_t *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return 1;
    }
    run->state = s;
    if (!sig) {
        snprintf(err, errlen, "replay needs a signature");
        return 2;
    }
    long np = launch_np(o->launch, o->nlaunch);
    if (np && np != (long)sig->np) {
        snprintf(err, errlen, "the signature is of a %u-rank run, the launcher asks for %ld: "
                 "launch with -np %u", sig->np, np, sig->np);
        return 2;
    }
    const pas2p_sig_rank_t *uncal = o->kernel ? pas2p_signature_uncalibrated(sig) : NULL;
    if (uncal) {
        snprintf(err, errlen, "%s: rank %u has no kernel calibration (traced with "
                 "PAS2P_CALIBRATE_MS=0 or by an older pas2p): trace again, or use --compute sleep",
                 run->opts->sig_path, uncal->rank);
        return 2;
    }
    if (pas2p_find_beside("PAS2P_REPLAYER", "pas2p-replayer", s->replayer, sizeof s->replayer) ||
        access(s->replayer, X_OK)) {
        snprintf(err, errlen, "the replayer %s is missing (build pas2p with MPI; or set "
                 "PAS2P_REPLAYER)", s->replayer);
        return 2;
    }
    return 0;
}

static int prepare(pas2p_run_t *run, char *err, size_t errlen)
{
    replay_state_t *s = run->state;
    if (pas2p_actions_dir(run->sig, PAS2P_ACTIONS_FOR_REPLAY, NULL, run->dir, s->actdir, sizeof s->actdir, NULL, err, errlen))
        return 2;
    if (err[0]) { /* the phases were aligned to the representative's */
        pas2p_run_say(run, "note: %s", err);
        err[0] = 0;
    }
    return 0;
}

/* the launcher, then the replayer and its arguments */
static int run_replayer(pas2p_run_t *run, char *err, size_t errlen)
{
    const pas2p_replay_opts_t *o = run->bopts;
    replay_state_t *s = run->state;
    /* the replayer's test hook, checked here: a bad one there is an abort of every rank */
    const char *hc = getenv("PAS2P_REPLAY_TEST_HICCUP");
    unsigned hid;
    double hs;
    char hx;
    if (hc && sscanf(hc, "%u:%lf%c", &hid, &hs, &hx) != 2) {
        snprintf(err, errlen, "PAS2P_REPLAY_TEST_HICCUP=%.100s: expected PHASE:SECONDS (a test "
                 "hook; unset it)", hc);
        return 2;
    }
    int nl = o->nlaunch;
    char **launch = calloc((size_t)nl + 6, sizeof *launch), repss[16];
    if (!launch) {
        snprintf(err, errlen, "out of memory");
        return 1;
    }
    snprintf(repss, sizeof repss, "%ld", o->reps);
    memcpy(launch, o->launch, (size_t)nl * sizeof *launch);
    launch[nl] = s->replayer;
    launch[nl + 1] = s->actdir;
    launch[nl + 2] = run->dir;
    launch[nl + 3] = repss;
    launch[nl + 4] = o->kernel ? "kernel" : "sleep";
    /* the replayer's watchdog: a minute plus ten times the traced run (a replay takes a
     * fraction of it), unless PAS2P_REPLAY_TIMEOUT says otherwise */
    char tos[32];
    if (!getenv("PAS2P_REPLAY_TIMEOUT")) {
        snprintf(tos, sizeof tos, "%.0f", 60 + 10 * run->sig->aet_s);
        setenv("PAS2P_REPLAY_TIMEOUT", tos, 1);
    }
    static const char *const xs[] = {"PAS2P_QUIET", "PAS2P_REPLAY_TIMEOUT",
                                     "PAS2P_REPLAY_TEST_HICCUP"}; /* (replayer.c's test hook) */
    if (!pas2p_quiet_env())
        pas2p_run_say(run, "%u ranks replaying %s's relevant phases (compute: %s)", run->sig->np,
                      run->opts->sig_path, o->kernel ? "kernel" : "sleep");
    char who[64];
    pas2p_run_who(run, who, sizeof who);
    pas2p_launch_info_t li;
    run->code = pas2p_launch_info(who, NULL, launch, nl + 5, xs, sizeof xs / sizeof *xs, &li);
    free(launch);
    char why[512] = "", path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/replay.error", run->dir);
    FILE *ef = fopen(path, "r");
    if (run->code && !ef && (li.no_sync || li.signaled)) { /* Open MPI's race, or its
                     launcher's crash in its own teardown, if every rank's times are here:
                     verify() says */
        ((replay_state_t *)run->state)->no_sync_code = run->code;
        ((replay_state_t *)run->state)->signaled = li.no_sync ? 0 : li.signaled;
        run->code = 0;
    }
    if (run->code && !ef) {
        if (run->code != 127) /* 127: the launcher could not be run, and said so */
            snprintf(err, errlen, "the replay failed (launcher exit status %d)", run->code);
        return 1;
    }
    if (ef) { /* the replayer refused (wrong np) or its watchdog fired: its one line */
        if (!fgets(why, sizeof why, ef))
            why[0] = 0;
        fclose(ef);
        why[strcspn(why, "\n")] = 0;
        snprintf(err, errlen, "%s", why[0] ? why : "the replayer refused to run");
        return 1;
    }
    return 0;
}

static int verify(pas2p_run_t *run, int missing, char *err, size_t errlen)
{
    char e[2048];
    const replay_state_t *s = run->state;
    if (missing < 0) {
        if (s->no_sync_code) {
            char note[512];
            if (s->signaled)
                pas2p_launch_signal_note(note, sizeof note, s->signaled, "its replay times");
            else
                pas2p_launch_no_sync_note(note, sizeof note, s->no_sync_code, "its replay times");
            pas2p_run_say(run, "note: %s", note);
        }
        return 0;
    }
    snprintf(e, sizeof e, "%s", err);
    if (s->no_sync_code)
        snprintf(err, errlen, "%s (the replay failed: launcher exit status %d)", e,
                 s->no_sync_code);
    else
        snprintf(err, errlen, "%s (did the launcher run the replayer?)", e);
    return 1;
}

static void describe(const pas2p_run_t *run, pas2p_prediction_t *res)
{
    const pas2p_replay_opts_t *o = run->bopts;
    const char *rel = run->opts->relative;
    pas2p_join_argv(res->target, sizeof res->target, o->launch, o->nlaunch);
    snprintf(res->stop, sizeof res->stop, "replayed: %ld replay(s) of each relevant phase, the "
             "first a warm-up (at least 6 of a phase replayed in under 2 ms; one of a phase of "
             "weight 1; more while a phase's timed ones disagree), computation as %s%s%.160s",
             o->reps,
             o->kernel ? KERNEL_MODE : SLEEP_MODE, rel ? ", relative to the base replay in " : "",
             rel ? rel : "");
}

/* Each rank's computation becomes kernel blocks at that rank's own calibration, taken
 * while it was traced: a rank that shared its core then has a slower one.  Where the
 * ranks' calibrations are far apart the base was not one machine state (GARLI traced
 * beside other jobs: 2.3x between its 2 ranks, replay -39 %; PhyML +57 to +78 %): said
 * with the result, not hidden (and not before a failure's one line).  Compared over the
 * time each rank was not blocked off the CPU (compute_blocked): a rank that slept most of
 * its time (RELION's master, 1 % of a core and 99 % blocked) has a low rate by its own
 * doing, not the machine's */
static double unblocked_rate(const pas2p_sig_rank_t *R)
{
    double b = R->compute_blocked > 0 && R->compute_blocked < 1 ? R->compute_blocked : 0;
    return R->kernel_rate / (1 - b);
}

static void print(const pas2p_run_t *run, FILE *out)
{
    const pas2p_replay_opts_t *o = run->bopts;
    const pas2p_signature_t *sig = run->sig;
    uint32_t lo = UINT32_MAX, hi = UINT32_MAX;
    for (uint32_t r = 0; o->kernel && r < sig->nranks; r++) {
        double k = unblocked_rate(&sig->ranks[r]);
        if (!(k > 0))
            continue;
        if (lo == UINT32_MAX || k < unblocked_rate(&sig->ranks[lo]))
            lo = r;
        if (hi == UINT32_MAX || k > unblocked_rate(&sig->ranks[hi]))
            hi = r;
    }
    if (lo != UINT32_MAX && unblocked_rate(&sig->ranks[hi]) > 1.5 * unblocked_rate(&sig->ranks[lo]))
        fprintf(out, "note: the trace's kernel calibrations differ %.1fx between ranks (rank %u: "
                "%.3g blocks/s, rank %u: %.3g): the base machine was shared while tracing, and "
                "this replay carries it (--compute sleep replays the recorded times; a trace on "
                "a quiet machine calibrates again)\n",
                unblocked_rate(&sig->ranks[hi]) / unblocked_rate(&sig->ranks[lo]),
                sig->ranks[hi].rank, unblocked_rate(&sig->ranks[hi]), sig->ranks[lo].rank,
                unblocked_rate(&sig->ranks[lo]));
}

static void release(pas2p_run_t *run)
{
    free(run->state);
    run->state = NULL;
}

const pas2p_backend_t pas2p_backend_replay = {
    .method = "replay",
    .comm_relevant = 1,
    .dir_prefix = "pas2p-replay",
    .check = check,
    .mode = mode,
    .prepare = prepare,
    .run = run_replayer,
    .verify = verify,
    .describe = describe,
    .print = print,
    .release = release,
};
