/* The one prediction pipeline (pas2p_pipeline.h): signature → backend → times → PET →
 * prediction.xml, whatever measured the phases. */
#include "pas2p_pipeline.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "pas2p_launch.h"

void pas2p_run_say(const pas2p_run_t *run, const char *fmt, ...)
{
    FILE *log = run->opts->log ? run->opts->log : stderr;
    va_list ap;
    va_start(ap, fmt);
    fprintf(log, "pas2p %s: ", run->opts->cmd);
    vfprintf(log, fmt, ap);
    fputc('\n', log);
    va_end(ap);
}

void pas2p_run_who(const pas2p_run_t *run, char *out, size_t len)
{
    snprintf(out, len, "pas2p %s", run->opts->cmd);
}

int pas2p_quiet_env(void)
{
    const char *q = getenv("PAS2P_QUIET");
    return q && *q;
}

/* A run without a signature (the reference replay): its SET is the prediction. */
static int collect_reference(pas2p_run_t *run, pas2p_pipeline_result_t *res, char *err,
                             size_t errlen)
{
    const pas2p_pipeline_opts_t *o = run->opts;
    double set = 0;
    for (uint32_t r = 0; r < run->np; r++) {
        pas2p_sig_rank_t R = {.rank = r};
        pas2p_times_t st;
        memset(&st, 0, sizeof st);
        if (pas2p_times_read(run->dir, &R, NULL, &st, err, errlen))
            return o->backend->verify(run, (int)r, err, errlen);
        if (st.set_s > set)
            set = st.set_s;
    }
    FILE *out = o->out ? o->out : stdout;
    fprintf(out, "results = %s\n", run->shown_dir);
    if (o->backend->print) /* (the platform, base speed and placement it ran with) */
        o->backend->print(run, out);
    fprintf(out, "events = %llu\nPET = %.6f s\nSET = %.6f s\n", (unsigned long long)run->events,
            set, set);
    if (o->aet > 0)
        fprintf(out, "AET = %.6f s\nPETE = %+.2f %%\n", o->aet, (set - o->aet) / o->aet * 100);
    fprintf(out, "wall = %.6f s\n", run->wall_s);
    if (res)
        res->pet_s = res->set_s = set;
    return 0;
}

/* Every rank's times file, then PET, the prediction file, and what is printed. */
static int collect(pas2p_run_t *run, pas2p_pipeline_result_t *res, char *err, size_t errlen)
{
    const pas2p_pipeline_opts_t *o = run->opts;
    const pas2p_backend_t *b = o->backend;
    const pas2p_signature_t *sig = run->sig;
    if (!sig)
        return collect_reference(run, res, err, errlen);
    run->st = calloc(sig->nranks ? sig->nranks : 1, sizeof *run->st);
    if (!run->st) {
        snprintf(err, errlen, "out of memory");
        return 1;
    }
    /* a divergence anywhere is the answer; else the first rank without its file */
    int missing = -1, diverged = -1;
    char merr[2048] = "", e[2048];
    for (uint32_t r = 0; r < sig->nranks; r++) {
        if (pas2p_times_read(run->dir, &sig->ranks[r], NULL, &run->st[r], e, sizeof e)) {
            if (missing < 0) {
                missing = (int)r;
                snprintf(merr, sizeof merr, "%s", e);
            }
            continue;
        }
        if (run->st[r].status == PAS2P_TIMES_DIVERGED && diverged < 0)
            diverged = (int)r;
    }
    if (diverged >= 0) {
        /* a call that differs (not an early end, not another program: those say so): the
         * run made other calls than the traced one.  Besides another input, a program may
         * choose its calls by timing (NetPIPE sets its repeat counts by measuring): say
         * what is left then */
        const char *why = run->st[diverged].reason;
        int call = !strncmp(why, "diverged from the signature at event", 36) &&
                   !strstr(why, "a collective's root moved first"); /* (said already) */
        snprintf(err, errlen, "rank %u: %s%s%s", sig->ranks[diverged].rank, why,
                 call ? " (another input or np, a file an earlier run left, or calls chosen by "
                        "timing: replay and simulate need no application"
                      : "",
                 !call             ? ""
                 : sig->anchored   ? ")"
                                   : "; calls dealt out at run time: analyze --locate anchors)");
        return 1;
    }
    snprintf(err, errlen, "%s", merr);
    int rc = b->verify(run, missing, err, errlen);
    if (rc || missing >= 0)
        return rc ? rc : 1;
    err[0] = 0;
    pas2p_prediction_t p;
    memset(&p, 0, sizeof p);
    if (pas2p_pet_from_times(sig, run->dir, o->relative, b->occurrences,
                             run->aet_s > 0 ? run->aet_s : o->aet, &p.pet, err, errlen))
        return 1;
    pas2p_prediction_begin(&p, b->method, o->sig_path, sig, run->wall_s);
    b->describe(run, &p);
    char xml[PATH_MAX + 32];
    snprintf(xml, sizeof xml, "%s/prediction.xml", run->dir);
    if (pas2p_prediction_write(&p, xml, err, errlen)) {
        pas2p_prediction_free(&p);
        return 1;
    }
    FILE *out = o->out ? o->out : stdout;
    fprintf(out, "results = %s\nprediction = %s/prediction.xml\n", run->shown_dir, run->shown_dir);
    if (b->print)
        b->print(run, out);
    pas2p_prediction_print(&p, out);
    if (res) {
        res->pet_s = p.pet.pet_s;
        res->set_s = p.pet.set_s;
    }
    pas2p_prediction_free(&p);
    if (run->exit_status) {
        snprintf(err, errlen, "the launcher exited with status %d", run->exit_status);
        return run->exit_status;
    }
    return 0;
}

int pas2p_pipeline_run(const pas2p_pipeline_opts_t *o, pas2p_pipeline_result_t *res, char *err,
                       size_t errlen)
{
    const pas2p_backend_t *b = o->backend;
    pas2p_run_t run;
    memset(&run, 0, sizeof run);
    run.opts = o;
    run.bopts = o->backend_opts;
    pas2p_signature_t sig;
    memset(&sig, 0, sizeof sig);
    err[0] = 0;
    if (res)
        res->pet_s = res->set_s = NAN;
    double share = 0.01, was = 1;
    uint32_t more = 0, cov = 0;
    if (o->sig_path) {
        if (b->no_events ? pas2p_signature_read_tables(o->sig_path, &sig, err, errlen)
                         : pas2p_signature_read(o->sig_path, &sig, err, errlen))
            return 2;
        run.sig = &sig;
        run.np = sig.np;
        share = sig.relevance > 0 ? sig.relevance : 0.01;
        more = b->comm_relevant ? pas2p_signature_relevant_comm(&sig, share) : 0;
        cov = b->comm_relevant ? pas2p_signature_relevant_cover(&sig, PAS2P_REPLAY_COVER, &was) : 0;
    }
    int rc = 0;
    if (o->relative) { /* the base run must be of the same signature and settings */
        char mode[256] = "";
        rc = 2;
        if (!b->mode || !run.sig) {
            snprintf(err, errlen, "--relative compares runs of a signature");
            goto out;
        }
        b->mode(&run, mode, sizeof mode);
        if (pas2p_prediction_check_base(o->relative, b->method, o->sig_path, mode, err, errlen))
            goto out;
        rc = 0;
    }
    if ((rc = b->check(&run, err, errlen)))
        goto out;
    /* (result lines, not stderr: a refusal, here or when the run starts, stays one line) */
    if (more)
        printf("note: %u phase(s) below the relevance threshold in the base's time carry >= %g "
               "%% of a rank's communication, or are needed so that the replayed ones hold >= "
               "%g %% of every rank's messages: replayed as relevant too\n", more,
               100 * share, 100 * PAS2P_COMM_COVER);
    if (cov)
        printf("note: the relevant phases hold %.1f %% of a rank's base time: %u more phase(s) "
               "replayed, so that the replayed ones hold >= %g %% of every rank's (the rest is "
               "extrapolated from their ratio)\n", 100 * was, cov, 100 * PAS2P_REPLAY_COVER);
    char untraced[768];
    int unt = run.sig && strcmp(b->method, "predict") &&
              pas2p_signature_untraced_note(run.sig, untraced, sizeof untraced);
    if (unt) /* (predict runs those calls: its phases time them) */
        printf("note: %s\n", untraced);
    if (more || cov || unt)
        fflush(stdout);
    char defdir[64];
    run.shown_dir = o->dir;
    if (!run.shown_dir) {
        pas2p_default_dir(b->dir_prefix, defdir, sizeof defdir);
        run.shown_dir = defdir;
    }
    if (pas2p_prepare_dir_err(run.shown_dir, err, errlen)) {
        rc = 2;
        goto out;
    }
    if (!realpath(run.shown_dir, run.dir)) {
        snprintf(err, errlen, "%s: %s", run.shown_dir, strerror(errno));
        rc = 2;
        goto out;
    }
    if ((rc = b->prepare(&run, err, errlen)))
        goto out;
    double w0 = pas2p_mono_s();
    rc = b->run(&run, err, errlen);
    run.wall_s = pas2p_mono_s() - w0;
    if (!rc)
        rc = collect(&run, res, err, errlen);
out:
    if (b->release)
        b->release(&run);
    free(run.st);
    if (run.sig)
        pas2p_signature_free(&sig);
    return rc;
}
