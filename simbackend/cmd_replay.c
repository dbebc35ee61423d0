/* `pas2p replay`: the signature as a portable benchmark.  Parses, then runs the pipeline
 * (signature/pas2p_pipeline.h) with the replay backend (backend_replay.c: the relevant
 * phases as actions replayed with real MPI), or (--export) writes the actions as SimGrid
 * time-independent traces (export.c). */
#include <stdio.h>
#include <string.h>

#include "pas2p_cli.h"
#include "pas2p_platform.h"
#include "pas2p_sim.h"

static const char usage[] =
    "usage: pas2p replay SIGNATURE.xml [-o DIR] [--compute kernel|sleep] [--reps N] [--aet T]\n"
    "                    [--relative BASE_DIR] -- LAUNCHER...\n"
    "       pas2p replay SIGNATURE.xml --export DIR [--base-speed F]\n"
    "\n"
    "Runs the signature's relevant phases (and the phases with >= the relevance share of a\n"
    "rank's messages or bytes sent, and the largest others until the phases replayed hold\n"
    "95 % of every rank's base time) on this (target) machine as real MPI, without the\n"
    "application: each rank issues the recorded calls (same peers, tags, sizes,\n"
    "communicators, non-blocking pairs, collectives; simbackend/ACTIONS.md), each phase\n"
    "--reps times after a barrier, the first warming up (its messages only).  PET comes from the same equation as\n"
    "`pas2p predict`.  LAUNCHER is the MPI launch without a program, e.g. `mpirun -np 4`:\n"
    "pas2p appends its replayer.  np must be the signature's.\n"
    "\n"
    "  --compute kernel   computation runs a compute kernel calibrated on the base machine\n"
    "                     (tracer/pas2p_kernel.h) to take the recorded time there: the\n"
    "                     target's core speed enters, as for a compute-bound, cache-resident\n"
    "                     code (default); the share of it a rank was blocked off the CPU\n"
    "                     on the base (I/O, a child process, sleep) is waited out as time\n"
    "  --compute sleep    computation keeps its base time (a timed wait): only the network\n"
    "                     and the MPI library of the target are measured\n"
    "  --reps N           replays of each phase (default 3, 1-16), the first a warm-up of\n"
    "                     its messages without its computation; a phase of weight 1 once,\n"
    "                     cold, as the application ran it; one whose replay takes under\n"
    "                     2 ms on the base at least 6 times (one hiccup is not its time);\n"
    "                     a phase whose timed replays disagree (their range over half\n"
    "                     their median) is replayed again until the last one moves\n"
    "                     their median by under 5 %, up to twice its timed ones and one\n"
    "                     (16 at most; as predict awaits a steady phase)\n"
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
    "launch) and the per-phase table; writes them to DIR/prediction.xml.  A replay that has not\n"
    "ended a minute plus ten times the traced run after it started (PAS2P_REPLAY_TIMEOUT=S sets\n"
    "it) is stuck in a phase it cannot replay: it ends with one line naming the rank and phase.\n";

int pas2p_cmd_replay(int argc, char **argv)
{
    pas2p_replay_opts_t ro = {.reps = 3, .kernel = 1};
    pas2p_pipeline_opts_t o = {.cmd = "replay", .backend = &pas2p_backend_replay,
                               .backend_opts = &ro};
    const char *export_dir = NULL, *speed_s = NULL;
    int compute = 0, eq_kernel = 0, eq_sleep = 0, rc;
    static const char *const computes[] = {"kernel", "sleep", NULL};
    const pas2p_opt_t opts[] = {
        {.name = "-o", .kind = PAS2P_OPT_STRING, .dst = &o.dir, .what = "a directory"},
        {.name = "--relative", .kind = PAS2P_OPT_STRING, .dst = &o.relative, .what = "a directory"},
        {.name = "--export", .kind = PAS2P_OPT_STRING, .dst = &export_dir, .what = "a directory"},
        {.name = "--compute", .kind = PAS2P_OPT_CHOICE, .dst = &compute, .choices = computes,
         .what = "kernel or sleep"},
        {.name = "--compute=kernel", .kind = PAS2P_OPT_FLAG, .dst = &eq_kernel},
        {.name = "--compute=sleep", .kind = PAS2P_OPT_FLAG, .dst = &eq_sleep},
        {.name = "--reps", .kind = PAS2P_OPT_LONG, .dst = &ro.reps, .min = 1, .max = 16,
         .what = "a number from 1 to 16"},
        {.name = "--aet", .kind = PAS2P_OPT_DOUBLE, .dst = &o.aet, .min = 0, .max = 1e12,
         .min_open = 1, .what = "a time in seconds > 0"},
        {.name = "--base-speed", .kind = PAS2P_OPT_STRING, .dst = &speed_s,
         .what = "a speed such as 2.5Gf"},
    };
    const pas2p_cli_t cli = {.cmd = "replay", .usage = usage, .opts = opts,
                             .nopts = sizeof opts / sizeof *opts, .npos_max = 1,
                             .pos_what = "one signature", .dashdash = 1};
    pas2p_args_t args;
    if ((rc = pas2p_cli_parse(&cli, argc, argv, &args)))
        return rc == PAS2P_CLI_HELP ? PAS2P_EXIT_OK : rc;
    ro.kernel = eq_sleep ? 0 : eq_kernel ? 1 : compute == 0;
    double speed = 1e9;
    if (speed_s && !((speed = pas2p_parse_speed(speed_s)) > 0)) {
        pas2p_err("replay", "--base-speed needs a speed such as 2.5Gf, not '%s'", speed_s);
        return PAS2P_EXIT_USAGE;
    }
    int launcher = args.rest < argc;
    if (!args.npos) {
        pas2p_err("replay", "no signature (usage: pas2p replay SIG.xml -- mpirun -np N)");
        return PAS2P_EXIT_USAGE;
    }
    if (!export_dir && !launcher) {
        pas2p_err("replay", "no launcher (usage: pas2p replay SIG.xml -- mpirun -np N)");
        return PAS2P_EXIT_USAGE;
    }
    if (export_dir && o.relative) {
        pas2p_err("replay", "--relative needs a replay to compare, --export runs nothing");
        return PAS2P_EXIT_USAGE;
    }
    if (export_dir && launcher) {
        pas2p_err("replay", "--export runs nothing: drop the launcher after --");
        return PAS2P_EXIT_USAGE;
    }
    char err[4400];
    o.sig_path = args.pos[0];
    if (export_dir) {
        rc = pas2p_actions_export_file(o.sig_path, export_dir, speed, err, sizeof err);
        if (!rc) {
            printf("exported = %s\nsignature = %s\nbase speed = %.6g flop/s\n", export_dir,
                   o.sig_path, speed);
            printf("run with: %s/run.sh PLATFORM.xml [HOSTFILE]\n", export_dir);
            /* the two ways a stock replay differs from `pas2p simulate` on the same platform
             * by default (NetPIPE: 3508 s against simulate's 43.85 s; Meep 0.17 against
             * 1.45 s): said where the numbers are read */
            printf("note: to compare with `pas2p simulate SIG --platform P -o D`, export with "
                   "--base-speed set to the base speed simulate prints for P (this export's "
                   "is %.6g flop/s) and pass D/hostfile to run.sh (simulate's default --map "
                   "block fills each host's cores; smpirun without a hostfile puts one rank "
                   "per host)\n", speed);
        }
    } else {
        ro.launch = argv + args.rest;
        ro.nlaunch = argc - args.rest;
        rc = pas2p_pipeline_run(&o, NULL, err, sizeof err);
    }
    if (rc && err[0])
        pas2p_err("replay", "%s", err);
    return rc;
}
