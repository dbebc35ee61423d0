/* `pas2p simulate`: the signature (or, as the reference, the whole trace) replayed on a
 * SimGrid platform.  Parses, then runs the pipeline (signature/pas2p_pipeline.h) with the
 * simulate backend (backend_simulate.c), or the sweep (sweep.c) that runs it per point. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pas2p_cli.h"
#include "pas2p_platform.h"
#include "pas2p_sim.h"

static const char usage[] =
    "usage: pas2p simulate SIGNATURE.xml --platform P.xml [options]\n"
    "       pas2p simulate --full-trace TRACE_DIR --platform P.xml [options]\n"
    "\n"
    "Predicts the run on a simulated target: each relevant phase of the signature (and each\n"
    "phase with >= the relevance share of a rank's messages or bytes sent, which a slower\n"
    "network can make relevant, and the largest others until the phases replayed hold 95 %\n"
    "of every rank's base time) becomes MPI actions per rank (simbackend/ACTIONS.md),\n"
    "replayed inside SimGrid SMPI on the platform P.xml (one simulation for all phases; each\n"
    "phase replayed --reps times, the first warming up, every rank starting at the same\n"
    "simulated instant; a phase's time is its slice's, until its last rank is done).\n"
    "Computation keeps its base time on a host as fast as --base-speed; the target's hosts\n"
    "run it at their own speed.  PET comes from the same equation as `pas2p predict`.\n"
    "--full-trace replays every event of a trace instead: the reference a signature\n"
    "simulation must agree with (wildcard receives stay wildcards: they take messages in the\n"
    "target's order, not the base's); its PET and SET are the whole replay's simulated time,\n"
    "with no phase table and no prediction.xml (report takes the signature's predictions).\n"
    "\n"
    "  --platform P.xml     SimGrid 4.1 platform (platforms/*.xml, or `pas2p calibrate`)\n"
    "  --hostfile H         host of each rank, one per line (default: --map over the platform)\n"
    "  --map block|round-robin   ranks over the platform's host cores (default block)\n"
    "  --base-speed F       flop/s of the base machine's cores (e.g. 2.5Gf).  `kernel`: each\n"
    "                       rank's own speed on the base, measured by the trace's kernel\n"
    "                       calibration (tracer/pas2p_kernel.h), for platforms whose host\n"
    "                       speeds are kernel flop/s.  `host`: rank 0's host's speed (the\n"
    "                       target CPU is the base CPU: only the network changes).  Default:\n"
    "                       `kernel` when the platform says its speeds are kernel flop/s\n"
    "                       (`pas2p calibrate`, `vcluster platform` write <prop\n"
    "                       id=\"pas2p_speed_unit\" value=\"kernel\"/>) and the trace has a\n"
    "                       calibration, else `host`; the output says which, and why\n"
    "  --reps N             replays of each phase (default 2), the first a warm-up of its\n"
    "                       messages without its computation; a phase of weight 1 once\n"
    "  --aet T              the measured time on the target (s): prints PETE\n"
    "  --relative BASE_DIR  BASE_DIR holds a simulation of the same signature on the base\n"
    "                       machine's platform (`pas2p calibrate`; same --base-speed): each\n"
    "                       phase's target time is its base PhaseET x (simulated time here /\n"
    "                       simulated time there), so what the model gets wrong on both\n"
    "                       platforms (computation as flops, the network model) cancels out\n"
    "  --what-if LIST       a hypothetical change of the platform, e.g. speed=2,bw=0.5,lat=2:\n"
    "                       host speeds, link bandwidths and latencies multiplied (the scaled\n"
    "                       platform is written to DIR/platform.xml)\n"
    "  --sweep GRID         the procurement study: one simulation per point of a grid of\n"
    "                       what-if factors, e.g. speed=0.5:1:2,bw=1:10,lat=1 (values\n"
    "                       separated by ':'; a factor not named stays 1; at most 256\n"
    "                       points).  Writes DIR/sweep.csv, DIR/sweep.png (gnuplot; the\n"
    "                       script DIR/sweep.gp is kept) and each point's results in\n"
    "                       DIR/point-NNN/, and prints the table\n"
    "  --sg-cfg OPT         passed to SimGrid as --cfg=OPT (repeatable), e.g.\n"
    "                       network/model:CM02\n"
    "  -o DIR               results (default pas2p-simulate-YYYYmmdd-HHMMSS): actions/,\n"
    "                       hostfile, simgrid.log, rank-*.times, prediction.xml (none\n"
    "                       with --full-trace: no phases)\n"
    "  --verbose            show SimGrid's own output\n"
    "\n"
    "Prints `PET = T s`, `SET = T s` (simulated time of the whole replay), `wall = T s` (the\n"
    "simulation's real time) and the per-phase table.  A probe that no message answers\n"
    "(SimGrid's MPI_Probe polls, so SimGrid sees no deadlock) ends the simulation after\n"
    "PAS2P_REPLAY_TIMEOUT=S simulated seconds (default: a minute plus 100 x the traced run)\n"
    "with one line naming the rank, the probe and the phase.\n";

/* --sg-cfg, repeatable */
typedef struct {
    const char *v[32];
    int n;
} cfgs_t;

static int add_cfg(const char *value, void *dst)
{
    cfgs_t *c = dst;
    if (c->n == 32)
        return -1;
    c->v[c->n++] = value;
    return 0;
}

/* "speed=2,bw=0.5": the factors into wf; 0, or -1 with the token in err */
static int parse_whatif(const char *spec, double wf[3], char *err, size_t errlen)
{
    char buf[256], *save = NULL;
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '='), *end = NULL;
        int k = !eq ? -1 : !strncmp(tok, "speed=", 6) ? 0 : !strncmp(tok, "bw=", 3) ? 1
                         : !strncmp(tok, "lat=", 4) ? 2 : -1;
        double v = k >= 0 ? strtod(eq + 1, &end) : 0;
        if (k < 0 || *end || !(v > 0)) {
            snprintf(err, errlen, "--what-if takes speed=F,bw=F,lat=F with factors > 0, not '%s'", tok);
            return -1;
        }
        wf[k] = v;
    }
    return 0;
}

int pas2p_cmd_simulate(int argc, char **argv)
{
    pas2p_simulate_opts_t so = {.block = 1, .reps = 2, .whatif = {1, 1, 1}};
    pas2p_pipeline_opts_t o = {.cmd = "simulate", .backend = &pas2p_backend_simulate,
                               .backend_opts = &so};
    const char *speed = NULL, *sweep = NULL, *whatif = NULL;
    int map = 0, rc;
    cfgs_t cfgs = {.n = 0};
    static const char *const maps[] = {"block", "round-robin", NULL};
    const pas2p_opt_t opts[] = {
        {.name = "--platform", .kind = PAS2P_OPT_STRING, .dst = &so.platform, .what = "a SimGrid platform file"},
        {.name = "--full-trace", .kind = PAS2P_OPT_STRING, .dst = &so.trace, .what = "a trace directory"},
        {.name = "--hostfile", .kind = PAS2P_OPT_STRING, .dst = &so.hostfile, .what = "a file of host names"},
        {.name = "--map", .kind = PAS2P_OPT_CHOICE, .dst = &map, .choices = maps,
         .what = "block or round-robin"},
        {.name = "--base-speed", .kind = PAS2P_OPT_STRING, .dst = &speed,
         .what = "a speed such as 2.5Gf or 'kernel'"},
        {.name = "--relative", .kind = PAS2P_OPT_STRING, .dst = &o.relative, .what = "a directory"},
        {.name = "--reps", .kind = PAS2P_OPT_LONG, .dst = &so.reps, .min = 1, .max = 16,
         .what = "a number from 1 to 16"},
        {.name = "--aet", .kind = PAS2P_OPT_DOUBLE, .dst = &o.aet, .min = 0, .max = 1e12,
         .min_open = 1, .what = "a time in seconds > 0"},
        {.name = "--sg-cfg", .kind = PAS2P_OPT_CUSTOM, .dst = &cfgs, .parse = add_cfg,
         .what = "a SimGrid option (at most 32 --sg-cfg)"},
        {.name = "--sweep", .kind = PAS2P_OPT_STRING, .dst = &sweep, .what = "a grid such as speed=1:2,bw=0.5:1"},
        {.name = "--what-if", .kind = PAS2P_OPT_STRING, .dst = &whatif, .what = "factors such as speed=2,bw=0.5"},
        {.name = "-o", .kind = PAS2P_OPT_STRING, .dst = &o.dir, .what = "a directory"},
        {.name = "--verbose", .kind = PAS2P_OPT_FLAG, .dst = &so.verbose},
    };
    const pas2p_cli_t cli = {.cmd = "simulate", .usage = usage, .opts = opts,
                             .nopts = sizeof opts / sizeof *opts, .npos_max = 1,
                             .pos_what = "one signature"};
    pas2p_args_t args;
    if ((rc = pas2p_cli_parse(&cli, argc, argv, &args)))
        return rc == PAS2P_CLI_HELP ? PAS2P_EXIT_OK : rc;
    char err[4400];
    o.sig_path = args.npos ? args.pos[0] : NULL;
    so.block = map == 0;
    so.cfgs = cfgs.v;
    so.ncfg = cfgs.n;
    pas2p_sweep_grid_t grid;
    if (speed) {
        so.kernel_speed = !strcmp(speed, "kernel");
        so.host_speed = !strcmp(speed, "host");
        so.base_speed = so.kernel_speed || so.host_speed ? 0 : pas2p_parse_speed(speed);
        if (!so.kernel_speed && !so.host_speed && !(so.base_speed > 0)) {
            pas2p_err("simulate", "--base-speed needs a speed such as 2.5Gf, 'kernel' or 'host', not '%s'", speed);
            return PAS2P_EXIT_USAGE;
        }
    }
    if (!!o.sig_path == !!so.trace) {
        pas2p_err("simulate", "give a signature or --full-trace TRACE_DIR (see --help)");
        return PAS2P_EXIT_USAGE;
    }
    if (!so.platform) {
        pas2p_err("simulate", "no --platform (e.g. platforms/gbe-cluster.xml)");
        return PAS2P_EXIT_USAGE;
    }
    if ((sweep && pas2p_sweep_parse(sweep, &grid, err, sizeof err)) ||
        (whatif && parse_whatif(whatif, so.whatif, err, sizeof err))) {
        pas2p_err("simulate", "%s", err);
        return PAS2P_EXIT_USAGE;
    }
    if (sweep && whatif) {
        pas2p_err("simulate", "--sweep is a grid of --what-if factors: give one of them");
        return PAS2P_EXIT_USAGE;
    }
    if (o.relative && so.trace) {
        pas2p_err("simulate", "--relative compares signature simulations, not --full-trace");
        return PAS2P_EXIT_USAGE;
    }
    rc = sweep ? pas2p_sweep_run(&o, &grid, err, sizeof err) : pas2p_pipeline_run(&o, NULL, err, sizeof err);
    if (rc && err[0])
        pas2p_err("simulate", "%s", err);
    return rc;
}
