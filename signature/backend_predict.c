/* The predict backend of the pipeline (pas2p_pipeline.h): the application itself, launched
 * on the target with libpas2p in signature mode.  Each rank loads the signature runtime
 * (sigrun.c, from PAS2P_SIGRUN_LIB), follows the signature, times the relevant phases and
 * writes its times file; the run stops early once every rank has its phases. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pas2p_launch.h"
#include "pas2p_pipeline.h"
#include "pas2p_times.h"

typedef struct {
    char lib[PATH_MAX];
    int forced;                    /* the runtime ended the job (PAS2P_STOP_CODE) once every
                                      rank's times were safe on rank 0 */
    double timeout_s;              /* the watchdog's (0: none) */
    pas2p_launch_info_t li;        /* the launch: li.timed_out, the watchdog stopped it */
    pas2p_to_end_t te;             /* --to-end: the run's own time, and its calls */
} predict_state_t;

static int check(pas2p_run_t *run, char *err, size_t errlen)
{
    predict_state_t *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return 1;
    }
    run->state = s;
    if (pas2p_find_beside("PAS2P_LIB", "../lib/libpas2p.so", s->lib, sizeof s->lib)) {
        snprintf(err, errlen, "library %s not found (set PAS2P_LIB)", s->lib);
        return 2;
    }
    return 0;
}

/* the signature runtime's settings, in this process's environment: pas2p_launch forwards
 * them to every rank */
static int prepare(pas2p_run_t *run, char *err, size_t errlen)
{
    const pas2p_predict_opts_t *o = run->bopts;
    const predict_state_t *s = run->state;
    char abssig[PATH_MAX], occs[16], rare[32], sigrun[PATH_MAX + 32];
    if (!realpath(run->opts->sig_path, abssig)) {
        snprintf(err, errlen, "%s: cannot resolve its path", run->opts->sig_path);
        return 2;
    }
    snprintf(occs, sizeof occs, "%ld", o->occurrences);
    setenv("PAS2P_SIGNATURE", abssig, 1);
    setenv("PAS2P_PREDICT_DIR", run->dir, 1);
    setenv("PAS2P_OCCURRENCES", occs, 1);
    if (o->ignore_args)
        setenv("PAS2P_ARGS_CHECK", "0", 1);
    else
        unsetenv("PAS2P_ARGS_CHECK");
    setenv("PAS2P_MEASURE_END", o->measure_end ? "1" : "0", 1);
    setenv("PAS2P_TO_END", o->to_end ? "1" : "0", 1);
    snprintf(rare, sizeof rare, "%.6g", o->rare_after);
    setenv("PAS2P_RARE_AFTER", rare, 1);
    setenv("PAS2P_PREDICT_REPORTS", "1", 1); /* a divergence is said once, by predict */
    const char *sr = getenv("PAS2P_SIGRUN_LIB"); /* the sink: beside libpas2p unless set */
    if (!sr || !*sr) {
        const char *slash = strrchr(s->lib, '/');
        snprintf(sigrun, sizeof sigrun, "%.*slibpas2p-sigrun.so",
                 slash ? (int)(slash - s->lib + 1) : 0, s->lib);
        setenv("PAS2P_SIGRUN_LIB", sigrun, 1);
    }
    return 0;
}

static int run_app(pas2p_run_t *run, char *err, size_t errlen)
{
    const pas2p_predict_opts_t *o = run->bopts;
    predict_state_t *s = run->state;
    static const char *const xs[] = {"PAS2P_SIGNATURE", "PAS2P_PREDICT_DIR", "PAS2P_OCCURRENCES",
                                      "PAS2P_ARGS_CHECK", "PAS2P_MEASURE_END", "PAS2P_QUIET",
                                      "PAS2P_RARE_AFTER", "PAS2P_TO_END",
                                      "PAS2P_PREDICT_REPORTS",
                                      "PAS2P_SIGRUN_LIB"};
    char who[64];
    pas2p_run_who(run, who, sizeof who);
    /* the runtime's own aborts are predict's to report: their banners are not shown */
    static const int codes[] = {PAS2P_STOP_CODE, PAS2P_DIVERGED_CODE};
    /* the watchdog: a run that hangs (an application waiting for a message that never
     * comes) is stopped, never waited for: a minute plus ten times the traced run, as
     * replay's, by default */
    s->timeout_s = o->timeout_s >= 0 ? o->timeout_s : 60 + 10 * run->sig->aet_s;
    run->code = pas2p_launch_hiding_abort(who, s->lib, o->launch, o->nlaunch, xs,
                                          sizeof xs / sizeof *xs, codes, 2, s->timeout_s,
                                          &s->li);
    s->forced = run->code == PAS2P_STOP_CODE;
    run->exit_status = s->forced ? 0 : run->code; /* the application's own status */
    (void)err;
    (void)errlen;
    return run->code == 127 ? 2 : 0; /* 127: the launcher could not be run, and said so */
}

static int verify(pas2p_run_t *run, int missing, char *err, size_t errlen)
{
    const pas2p_predict_opts_t *o = run->bopts;
    predict_state_t *s = run->state;
    /* every rank's times final: stopped, or measured to its MPI_Finalize before the job was
     * ended (a run whose only phase is the whole run, located by anchors: the rank whose
     * occurrence closed first ends the job while another is finishing) */
    int stopped = 1;
    for (uint32_t r = 0; r < run->sig->nranks; r++)
        stopped &= run->st[r].status == PAS2P_TIMES_STOPPED ||
                   run->st[r].status == PAS2P_TIMES_COMPLETED;
    char e[2048];
    snprintf(e, sizeof e, "%s", err);
    if (s->li.timed_out) {
        snprintf(err, errlen, "the run did not end within %.0f s (--timeout; by default a "
                 "minute plus ten times the traced run): stopped, no prediction (a rank waiting "
                 "for a message that never comes, or a target this much slower: --timeout 0 "
                 "waits for ever)", s->timeout_s);
        return 1;
    }
    if (s->forced && (missing >= 0 || !stopped)) {
        snprintf(err, errlen, "the job was ended by its signature runtime, but %s",
                 missing >= 0 ? e : "not every rank's times say it stopped or completed");
        return 1;
    }
    if (missing >= 0 && run->code == PAS2P_DIVERGED_CODE) {
        snprintf(err, errlen, "the run diverged from the signature on a rank whose times file is "
                 "not here (%s): its reason is in that file on its node", e);
        return 1;
    }
    int none = 1; /* no rank wrote its times: the launch itself failed, or no rank started */
    for (uint32_t r = 0; r < run->sig->nranks; r++)
        none &= !run->st[r].status;
    if (missing >= 0 && none && run->code) {
        snprintf(err, errlen, "no rank of the run reported (the launch or the application "
                 "failed before: exit status %d, its message above)", run->code);
        return run->code;
    }
    if (missing >= 0 && none) { /* exit 0, and no rank ever reached MPI_Init under pas2p */
        snprintf(err, errlen, "the run ended (exit status 0) with no rank reporting: its "
                 "program never initialised MPI with pas2p's library loaded (a serial run -- "
                 "OpenFOAM without -parallel ran its whole solve so --, a program that is not "
                 "the MPI one, or a launcher that does not pass LD_PRELOAD to its ranks)");
        return 1;
    }
    if (missing >= 0) {
        snprintf(err, errlen, "%s (the run failed%s, exit status %d)", e,
                 run->code ? "" : " or did not load libpas2p", run->code);
        return run->code ? run->code : 1;
    }
    if (run->exit_status && s->li.no_sync && stopped) { /* Open MPI's race, not the run's */
        char note[512];
        pas2p_launch_no_sync_note(note, sizeof note, run->code, "its times");
        pas2p_run_say(run, "note: %s", note);
        run->exit_status = 0;
    }
    /* the launcher itself crashed once every rank's times were final (Open MPI 4.1's mpirun,
     * signal 11 in PMIx_server_finalize after every rank had reached MPI_Finalize: test
     * predict_whole_run_more_calls failed so in CI): the times are whole; kept, said */
    if (run->exit_status && s->li.signaled && !s->li.timed_out && stopped) {
        char note[512];
        pas2p_launch_signal_note(note, sizeof note, s->li.signaled, "its times");
        pas2p_run_say(run, "note: %s", note);
        run->exit_status = 0;
    }
    /* every rank stopped early, as asked, and the launch still exited non-zero: a launch
     * script that checks the application's output or status saw the run cut short
     * (validation/lammps/run.sh: "LAMMPS printed no loop time", exit 1, and predict failed
     * on LAMMPS launched as its users launch it).  The times are whole: kept, said. */
    int early = 1;
    for (uint32_t r = 0; r < run->sig->nranks; r++)
        early &= run->st[r].status == PAS2P_TIMES_STOPPED;
    if (run->exit_status && early && !o->to_end) {
        pas2p_run_say(run, "note: the launch exited with status %d after every rank had "
                      "stopped early with its times (a launch script that checks the "
                      "application's output sees a run cut short): the prediction stands",
                      run->code);
        run->exit_status = 0;
    }
    /* --to-end: the run's own time, which rank 0 wrote at MPI_Finalize, is the AET */
    if (o->to_end && pas2p_times_read_to_end(run->dir, (int)run->sig->np, &s->te, e, sizeof e)) {
        snprintf(err, errlen, "the run went on to its end (--to-end) but its time is not "
                 "there: %s (the launch exited with status %d)", e, run->code);
        return 1;
    }
    run->aet_s = o->to_end ? s->te.aet_s : 0;
    return 0;
}

static void describe(const pas2p_run_t *run, pas2p_prediction_t *res)
{
    const pas2p_predict_opts_t *o = run->bopts;
    const predict_state_t *s = run->state;
    const pas2p_signature_t *sig = run->sig;
    int stopped = 1;
    for (uint32_t r = 0; r < sig->nranks; r++)
        stopped &= run->st[r].status == PAS2P_TIMES_STOPPED;
    pas2p_join_argv(res->target, sizeof res->target, o->launch, o->nlaunch);
    snprintf(res->stop, sizeof res->stop, "%s",
             o->to_end && stopped
                 ? "to the end, as asked (--to-end): every rank's times taken when it had measured "
                   "what it must (SET), the run's own time its AET"
             : s->forced ? "early (guaranteed: every rank measured, times gathered on rank 0, the job "
                           "ended by pas2p)"
             : stopped   ? "early (all ranks agreed, nothing in flight)"
                         : "none: ran to MPI_Finalize");
    if (!stopped) { /* the rank whose measurements ended latest says what kept the run going */
        uint32_t late = 0;
        double late_f = -1;
        for (uint32_t r = 0; r < sig->nranks; r++) {
            const pas2p_times_t *st = &run->st[r];
            double f = st->events ? (double)st->done_at / (double)st->events : 1;
            if (st->status == PAS2P_TIMES_COMPLETED && f > late_f) {
                late_f = f;
                late = r;
            }
        }
        snprintf(res->note, sizeof res->note, "rank %u %.1000s", sig->ranks[late].rank,
                 run->st[late].reason);
    }
}

/* departures the signature runtime tolerated in phases that are not relevant (sigrun.c:
 * tolerate(), rounds of an anchored signature whose point-to-point calls differed from the
 * base run's; depart(), a call with a size the base run did not see): how many, and the
 * first, so that a user sees the run was not the base's */
static void print(const pas2p_run_t *run, FILE *out)
{
    const pas2p_predict_opts_t *o = run->bopts;
    const predict_state_t *s = run->state;
    /* --to-end: a run that made other calls than the traced one (HPCG --rt chooses its
     * number of CG sets by timing) did other work: its AET is not the signature's run's */
    const pas2p_to_end_t *te = &s->te;
    if (o->to_end && te->rank >= 0 &&
        (double)(te->calls > te->traced ? te->calls - te->traced : te->traced - te->calls) >
            0.05 * (double)te->traced)
        fprintf(out, "note: --to-end: rank %d made %llu MPI calls where the traced run made %llu: "
                "this run did other work than the signature's, and its AET is not that run's "
                "(PETE compares the two)\n", te->rank, te->calls, te->traced);
    if (o->ignore_args) /* (another input runs other weights: the PET is not of this run) */
        fprintf(out, "note: --ignore-args: PET is the traced run's (%.1000s: its phases' weights "
                "and remainder), timed on this run's occurrences; a run with other arguments "
                "has other weights\n", run->sig->command);
    unsigned long long n = 0;
    uint32_t first = UINT32_MAX;
    for (uint32_t r = 0; r < run->sig->nranks; r++) {
        n += run->st[r].departed;
        if (run->st[r].departed && first == UINT32_MAX)
            first = r;
    }
    if (!n)
        return;
    fprintf(out, "departures = %llu\n", n);
    fprintf(out, "note: %llu occurrence(s) of phases that are not relevant or occur once, or "
            "after the rank had measured all it must, made other calls or sizes than the base "
            "run's, or a relevant phase's calls in another order, its varying sizes within "
            "4x of the base's or a collective's root elsewhere (tolerated: no time is extrapolated from the first, the others' "
            "calls are their skeleton's, timed as this run makes them); "
            "the first: rank %u %.900s\n", n, run->sig->ranks[first].rank,
            run->st[first].departed_why);
}

static void release(pas2p_run_t *run)
{
    free(run->state);
    run->state = NULL;
}

const pas2p_backend_t pas2p_backend_predict = {
    .method = "predict",
    .no_events = 1,
    .occurrences = 1,
    .dir_prefix = "pas2p-predict",
    .check = check,
    .mode = NULL,
    .prepare = prepare,
    .run = run_app,
    .verify = verify,
    .describe = describe,
    .print = print,
    .release = release,
};
