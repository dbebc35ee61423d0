/* The simulate backend of the pipeline (signature/pas2p_pipeline.h): the signature's
 * relevant phases (or, the reference, every event of a trace) as actions (actions.c),
 * ranks mapped to the hosts of a SimGrid platform, replayed by bin/pas2p-simreplay under
 * smpirun (through the tracer's launcher, its output in DIR/simgrid.log). */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pas2p_launch.h"
#include "pas2p_platform.h"
#include "pas2p_sim.h"
#include "pas2p_trace.h"

typedef struct {
    pas2p_platform_t plat;
    int *map;                      /* rank -> host index */
    int kernel;                    /* resolved: each rank's kernel calibration as base speed */
    char why[400];                 /* why that base speed (printed) */
    double base_speed;             /* resolved, when not kernel: the option, or rank 0's host's */
    char replayer[PATH_MAX];
    char hostfile[PATH_MAX + 64], scaled[PATH_MAX + 64], actdir[PATH_MAX + 64];
    char log[PATH_MAX + 64];
    const char *simplat;           /* the platform SimGrid gets: the given or the scaled */
    double aet_s;                  /* the traced run's (the probe limit: run_simgrid) */
} sim_state_t;

/* The base speed: 1 each rank's kernel calibration, 0 a speed.  Never silently the target
 * CPU: why says what was assumed and why.  kernel_unit: the platform says its speeds are
 * kernel flop/s; calibrated: the signature (or trace) has every rank's kernel speed. */
static int decide(const pas2p_simulate_opts_t *o, int kernel_unit, int calibrated, char *why,
                  size_t len)
{
    if (o->kernel_speed) {
        snprintf(why, len, "--base-speed kernel");
        return 1;
    }
    if (o->base_speed > 0) {
        snprintf(why, len, "--base-speed");
        return 0;
    }
    if (o->host_speed) {
        snprintf(why, len, "--base-speed host: the target CPU is taken as the base CPU");
        return 0;
    }
    if (kernel_unit && calibrated) {
        snprintf(why, len, "the platform's speeds are pas2p kernel flop/s (pas2p calibrate), "
                 "and the trace measured the kernel on every rank");
        return 1;
    }
    if (kernel_unit)
        snprintf(why, len, "rank 0's host: the platform's speeds are pas2p kernel flop/s, but "
                 "the trace has no kernel calibration (--base-speed F gives the base speed)");
    else
        snprintf(why, len, "rank 0's host: the platform does not say its speeds are pas2p "
                 "kernel flop/s, so the target CPU is taken as the base CPU (--base-speed F "
                 "or kernel to predict a CPU change)");
    return 0;
}

static void mode(const pas2p_run_t *run, char *out, size_t len)
{
    const pas2p_simulate_opts_t *o = run->bopts;
    const sim_state_t *s = run->state;
    int kernel;
    char why[400];
    if (s) {
        kernel = s->kernel;
    } else { /* before check (--relative's comparison): the same decision, made here */
        pas2p_platform_t plat;
        char e[512];
        int ok = !pas2p_platform_read(o->platform, &plat, e, sizeof e), unit = ok && plat.kernel_unit;
        if (ok)
            pas2p_platform_free(&plat);
        kernel = decide(o, unit, run->sig && !pas2p_signature_uncalibrated(run->sig), why, sizeof why);
    }
    if (kernel)
        snprintf(out, len, "base speed: kernel calibration");
    else if (o->base_speed > 0)
        snprintf(out, len, "base speed: %.6g flop/s", o->base_speed);
    else
        snprintf(out, len, "base speed: rank 0's host");
}

static int check(pas2p_run_t *run, char *err, size_t errlen)
{
    const pas2p_simulate_opts_t *o = run->bopts;
    sim_state_t *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return 1;
    }
    run->state = s;
    char uncal_what[300] = ""; /* the first rank without a kernel calibration, named */
    if (run->sig) {
        s->aet_s = run->sig->aet_s;
        const pas2p_sig_rank_t *uncal = pas2p_signature_uncalibrated(run->sig);
        if (uncal)
            snprintf(uncal_what, sizeof uncal_what, "%.200s: rank %u", run->opts->sig_path, uncal->rank);
    } else {
        pas2p_manifest_t m;
        if (!o->trace) {
            snprintf(err, errlen, "give a signature or --full-trace TRACE_DIR");
            return 2;
        }
        if (pas2p_manifest_read(o->trace, &m, err, errlen))
            return 2;
        run->np = (uint32_t)m.np;
        s->aet_s = m.aet_s;
        for (uint32_t r = 0; !uncal_what[0] && r < run->np; r++)
            if (!(m.kernel_rate && m.kernel_rate[r] > 0))
                snprintf(uncal_what, sizeof uncal_what, "%.200s: rank %u", o->trace, r);
        pas2p_manifest_free(&m);
    }
    if (o->kernel_speed && uncal_what[0]) {
        snprintf(err, errlen, "%s has no kernel calibration: give --base-speed a speed", uncal_what);
        return 2;
    }
    if (pas2p_platform_read(o->platform, &s->plat, err, errlen))
        return 2;
    s->kernel = decide(o, s->plat.kernel_unit, !uncal_what[0], s->why, sizeof s->why);
    if (pas2p_find_beside("PAS2P_SIMREPLAY", "pas2p-simreplay", s->replayer, sizeof s->replayer) ||
        access(s->replayer, X_OK)) {
        snprintf(err, errlen, "the replayer %s is missing (build with SimGrid installed: "
                 "scripts/setup.sh; or set PAS2P_SIMREPLAY)", s->replayer);
        return 2;
    }
    return 0;
}

/* rank -> host: the host file's, or --map over the platform's host cores */
static int map_ranks(const pas2p_simulate_opts_t *o, sim_state_t *s, uint32_t np, char *err,
                     size_t errlen)
{
    if (!o->hostfile) {
        if (pas2p_platform_map(&s->plat, np, o->block, s->map, err, errlen)) {
            char e[2048];
            snprintf(e, sizeof e, "%s", err);
            snprintf(err, errlen, "%s: %s", o->platform, e);
            return -1;
        }
        return 0;
    }
    FILE *h = fopen(o->hostfile, "r");
    if (!h) {
        snprintf(err, errlen, "%s: cannot open: %s", o->hostfile, strerror(errno));
        return -1;
    }
    char line[512];
    uint32_t n = 0;
    long ln = 0;
    while (n < np && fgets(line, sizeof line, h)) {
        ln++;
        line[strcspn(line, " \t\r\n")] = 0;
        if (!line[0] || line[0] == '#')
            continue;
        int k = pas2p_platform_find(&s->plat, line);
        if (k < 0) {
            snprintf(err, errlen, "%s:%ld: unknown host '%s' (not in %s)", o->hostfile, ln, line,
                     o->platform);
            fclose(h);
            return -1;
        }
        s->map[n++] = k;
    }
    fclose(h);
    if (n < np) {
        snprintf(err, errlen, "%s names %u hosts for %u ranks", o->hostfile, n, np);
        return -1;
    }
    return 0;
}

static int prepare(pas2p_run_t *run, char *err, size_t errlen)
{
    const pas2p_simulate_opts_t *o = run->bopts;
    sim_state_t *s = run->state;
    s->map = calloc(run->np ? run->np : 1, sizeof *s->map);
    if (!s->map) {
        snprintf(err, errlen, "out of memory");
        return 1;
    }
    if (map_ranks(o, s, run->np, err, errlen))
        return 2;
    snprintf(s->hostfile, sizeof s->hostfile, "%s/hostfile", run->dir);
    FILE *h = fopen(s->hostfile, "w");
    for (uint32_t r = 0; h && r < run->np; r++)
        fprintf(h, "%s\n", s->plat.hosts[s->map[r]].name);
    if (!h || fclose(h)) {
        snprintf(err, errlen, "%s: cannot write", s->hostfile);
        return 2;
    }
    s->base_speed = o->base_speed > 0 ? o->base_speed : s->plat.hosts[s->map[0]].speed;
    s->simplat = o->platform;
    if (o->whatif[0] != 1 || o->whatif[1] != 1 || o->whatif[2] != 1) {
        snprintf(s->scaled, sizeof s->scaled, "%s/platform.xml", run->dir);
        if (pas2p_platform_scale(o->platform, s->scaled, o->whatif[0], o->whatif[1], o->whatif[2],
                                 err, errlen))
            return 2;
        s->simplat = s->scaled;
    }
    if (pas2p_actions_dir(run->sig, PAS2P_ACTIONS_FOR_SIMULATION, o->trace, run->dir, s->actdir, sizeof s->actdir, &run->events,
                          err, errlen))
        return 2;
    if (err[0]) { /* the phases were aligned to the representative's */
        pas2p_run_say(run, "note: %s", err);
        err[0] = 0;
    }
    return 0;
}

/* the first line of SimGrid's log that explains a failure */
static void first_error(const char *log, char *out, size_t len)
{
    out[0] = 0;
    FILE *f = fopen(log, "r");
    if (!f)
        return;
    char line[2048];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (strstr(line, "pas2p-simreplay:") || strstr(line, "/CRITICAL]") || strstr(line, "/ERROR]") ||
            strstr(line, "Error") || strstr(line, "error") || strstr(line, "Abort")) {
            const char *p = strstr(line, "pas2p-simreplay:");
            snprintf(out, len, "%.1500s", p ? p : line);
            break;
        }
    }
    fclose(f);
}

static int run_simgrid(pas2p_run_t *run, char *err, size_t errlen)
{
    const pas2p_simulate_opts_t *o = run->bopts;
    sim_state_t *s = run->state;
    char nps[16], repss[16], speeds[32], cfgbuf[32][512];
    snprintf(nps, sizeof nps, "%u", run->np);
    snprintf(repss, sizeof repss, "%ld", run->sig ? o->reps : 1);
    if (s->kernel)
        snprintf(speeds, sizeof speeds, "kernel");
    else
        snprintf(speeds, sizeof speeds, "%.17g", s->base_speed);
    snprintf(s->log, sizeof s->log, "%s/simgrid.log", run->dir);
    char *cmd[64 + 32 * 2];
    int c = 0;
    cmd[c++] = "smpirun";
    cmd[c++] = "-np";
    cmd[c++] = nps;
    cmd[c++] = "-platform";
    cmd[c++] = (char *)s->simplat;
    cmd[c++] = "-hostfile";
    cmd[c++] = s->hostfile;
    cmd[c++] = "--cfg=smpi/simulate-computation:no"; /* only the actions' flops count */
    cmd[c++] = "--cfg=smpi/wtime:0";                 /* reading the clock costs nothing */
    /* nor does a test: SimGrid charges each 0.1 ms by default, and a `test` action stands
     * for a call that completed something (HPCC's RandomAccess: 14 k per rank, 1.4 s of a
     * 1.65 s phase); the base's time between calls is in `compute`.  A probe polls:
     * SimGrid's MPI_Probe loops on iprobe,
     * each charged smpi/iprobe, so at 0 a probe whose message is not there yet never lets
     * the simulated clock move (a full trace with an MPI_Probe hung); 1 us a poll */
    cmd[c++] = "--cfg=smpi/test:0";
    cmd[c++] = "--cfg=smpi/iprobe:1e-6";
    cmd[c++] = "--log=xbt_cfg.thres:warning";
    cmd[c++] = "--log=smpi_config.thres:warning";
    for (int k = 0; k < o->ncfg && k < 32; k++) {
        snprintf(cfgbuf[k], sizeof cfgbuf[k], "--cfg=%.500s", o->cfgs[k]);
        cmd[c++] = cfgbuf[k];
    }
    /* a probe that no message answers polls for ever (SimGrid's MPI_Probe loops on iprobe:
     * never a deadlock it can see): the replayer gives up on one after a minute plus a
     * hundred times the traced run of simulated time (PAS2P_REPLAY_TIMEOUT says otherwise),
     * naming the rank, the phase and the probe */
    char tos[32];
    if (!getenv("PAS2P_REPLAY_TIMEOUT")) {
        snprintf(tos, sizeof tos, "%.0f", 60 + 100 * s->aet_s);
        setenv("PAS2P_REPLAY_TIMEOUT", tos, 1);
    }
    cmd[c++] = s->replayer;
    cmd[c++] = s->actdir;
    cmd[c++] = run->dir;
    cmd[c++] = repss;
    cmd[c++] = speeds;
    cmd[c] = NULL;
    if (!pas2p_quiet_env())
        pas2p_run_say(run, "%u ranks on %s, SimGrid replaying %s", run->np, o->platform,
                      run->sig ? "the signature's relevant phases" : "the whole trace");
    if (o->verbose) { /* SimGrid talks to the terminal; its log file stays, empty */
        FILE *f = fopen(s->log, "w");
        if (f)
            fclose(f);
    }
    char who[64];
    pas2p_run_who(run, who, sizeof who);
    run->code = pas2p_launch_logged(who, NULL, cmd, c, NULL, 0, o->verbose ? NULL : s->log);
    if (!run->code)
        return 0;
    char why[1600];
    first_error(s->log, why, sizeof why);
    int sig = run->code > 128 ? run->code - 128 : 0;
    if ((sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGKILL) && !why[0])
        snprintf(why, sizeof why, "it was stopped from outside (%s: a timeout, Ctrl-C or the "
                 "batch system) before the end of the replay", strsignal(sig));
    else if (sig && !why[0]) /* SimGrid 3.x dies on some malformed <config> values */
        snprintf(why, sizeof why, "it crashed (signal %d, %s) on %.1000s: check its <config> "
                 "props (smpi/bw-factor and smpi/lat-factor take \"size:factor;...\")",
                 sig, strsignal(sig), o->platform);
    snprintf(err, errlen, "SimGrid failed (exit %d)%s%s (log: %s)", run->code, why[0] ? ": " : "",
             why, s->log);
    return 1;
}

/* a times file is missing although SimGrid exited 0 (it does on a deadlock): say why */
static int verify(pas2p_run_t *run, int missing, char *err, size_t errlen)
{
    const sim_state_t *s = run->state;
    char why[1600];
    if (missing < 0)
        return 0;
    first_error(s->log, why, sizeof why);
    if (why[0])
        snprintf(err, errlen, "the replay did not finish: %s (log: %s)", why, s->log);
    return 1;
}

static void describe(const pas2p_run_t *run, pas2p_prediction_t *res)
{
    const pas2p_simulate_opts_t *o = run->bopts;
    const char *rel = run->opts->relative;
    char m[128];
    mode(run, m, sizeof m);
    snprintf(res->target, sizeof res->target, "%s", o->platform);
    snprintf(res->stop, sizeof res->stop, "simulated: %ld replay(s) of each relevant phase, the "
             "first a warm-up (one of a phase of weight 1), %s%s%.160s", o->reps, m,
             rel ? ", relative to the base simulation in " : "", rel ? rel : "");
}

static void print(const pas2p_run_t *run, FILE *out)
{
    const pas2p_simulate_opts_t *o = run->bopts;
    const sim_state_t *s = run->state;
    if (s->kernel)
        fprintf(out, "platform = %s\nbase speed = kernel calibration of each rank (%s)\n",
                o->platform, s->why);
    else
        fprintf(out, "platform = %s\nbase speed = %.6g flop/s (%s)\n", o->platform,
                s->base_speed, s->why);
    /* where the ranks are: with the default --map block a small run may sit on one host's
     * cores and never touch the network (NetPIPE at np 2 on gbe-cluster) */
    int hosts = 0;
    unsigned char *used = calloc(s->plat.nhosts ? s->plat.nhosts : 1, 1);
    for (uint32_t r = 0; used && r < run->np; r++) {
        hosts += !used[s->map[r]];
        used[s->map[r]] = 1;
    }
    free(used);
    fprintf(out, "placement = %u rank(s) on %d host(s) (%s%s)\n", run->np, hosts,
            o->hostfile ? "--hostfile " : o->block ? "--map block" : "--map round-robin",
            o->hostfile ? o->hostfile : hosts == 1 && run->np > 1
                                            ? ": no message crosses the network; --map "
                                              "round-robin puts one rank per host"
                                            : "");
    if (s->simplat != o->platform)
        fprintf(out, "what-if = speed x%g, bandwidth x%g, latency x%g\n", o->whatif[0],
                o->whatif[1], o->whatif[2]);
}

static void release(pas2p_run_t *run)
{
    sim_state_t *s = run->state;
    if (!s)
        return;
    free(s->map);
    pas2p_platform_free(&s->plat);
    free(s);
    run->state = NULL;
}

const pas2p_backend_t pas2p_backend_simulate = {
    .method = "simulate",
    .comm_relevant = 1,
    .dir_prefix = "pas2p-simulate",
    .check = check,
    .mode = mode,
    .prepare = prepare,
    .run = run_simgrid,
    .verify = verify,
    .describe = describe,
    .print = print,
    .release = release,
};
