/* `pas2p predict SIGNATURE.xml [options] -- LAUNCH...`: the real-target prediction.
 * Parses, then runs the pipeline (pas2p_pipeline.h) with the predict backend: the
 * application under its signature (backend_predict.c). */
#include <stdio.h>

#include "pas2p_cli.h"
#include "pas2p_pipeline.h"
#include "pas2p_signature.h"

static const char usage[] =
    "usage: pas2p predict SIGNATURE.xml [-o DIR] [--occurrences N] [--rare-after F] [--aet T]\n"
    "                     [--to-end] [--ignore-args] [--measure-end] [--timeout S] -- LAUNCH...\n"
    "\n"
    "Runs the application on this (target) machine under its signature: every rank counts\n"
    "its MPI calls, checks them against the signature's phases, times the relevant phases'\n"
    "occurrences after the first (warm-up), and sends its times to rank 0 through MPI as\n"
    "soon as it has them (no shared filesystem is needed).  The run stops early, at the\n"
    "first of: a collective of all ranks once every rank is done and no message is in\n"
    "flight (cleanly), or rank 0 having every rank's times (the runtime ends the job;\n"
    "predict exits 0 and says so) -- the only way in a code with no such collective (a\n"
    "point-to-point loop), and often the first where the times arrive between two steps'\n"
    "collectives (LAMMPS).\n"
    "Then PET = sum(PhaseET x W) + the remainder, from the target's phase times.\n"
    "\n"
    "  -o DIR           where the ranks' times go (default pas2p-predict-YYYYmmdd-HHMMSS)\n"
    "  --occurrences N  occurrences per phase the stop waits for, after the warm-up (default\n"
    "                   3, up to 31); later ones that complete before the stop are timed\n"
    "                   too; the phase's time is its base mean x the median of each value\n"
    "                   over the same occurrence of the base run (the median of the values\n"
    "                   for a signature without occurrence times), of the occurrences\n"
    "                   whose base time is within 4x the phase's median if any, and of\n"
    "                   those after the target's last change of pace (2x) if 3 or more\n"
    "                   (the ones before count as they ran).  When those N disagree (their\n"
    "                   range is over half their median), the stop awaits more, one at a\n"
    "                   time while the last moves the median by over 5 %, up to 2N + 1,\n"
    "                   never past 3 % of the run's calls (or the rare phases' stop point\n"
    "                   if later); while that ratio is 4x off the base's, rests on no\n"
    "                   typical occurrence or on fewer than 3 that are a minority, or a\n"
    "                   change of pace has fewer than 3 after it, up to twice that point\n"
    "  --rare-after F   a relevant phase whose occurrences would hold the stop past this\n"
    "                   share of the run, counted in the rank's calls, not its time\n"
    "                   (default 0.01; 1: none), is rare: it is measured\n"
    "                   by its occurrences done by then, its first included (a rare phase\n"
    "                   is cold every time), or estimated as base time x the rank's ratio\n"
    "                   (marked `not measured`) -- unless the phases unseen by then carry\n"
    "                   25 % of the run or more: then each one's first is awaited (not\n"
    "                   counting an unseen phase whose calls and time per call are those of\n"
    "                   the phases measured by then: estimated from their ratio); never\n"
    "                   earlier than the first repeating phase's stop.  SET/AET against 1:\n"
    "                   LAMMPS 5000 steps 8.7 -> 2.2 % (PETE -3.5 -> -2.6 %), md 140 500\n"
    "                   85 -> 1 % (PETE -10.8 -> -14.5 %: its steps slow down over the run)\n"
    "                   (results/predict.md); 0.03 -> 0.01 (the default since 2026-12-03):\n"
    "                   stencil2d 600 iterations 3.3 -> 2.2 %, LAMMPS 2.1 -> 0.9 %, md 1.6 ->\n"
    "                   0.4 %, PETE of the same runs no worse.  A phase that carries half the\n"
    "                   rank's time is not rare when its occurrences come within 6 % of the\n"
    "                   calls (HPCG), or within 3 % of the calls after its first, awaited\n"
    "                   anyway (miniMD).  1 waits for every phase but a minor variant,\n"
    "                   a late one (first seen in the second half, the late ones < 25 % of\n"
    "                   the run together) and the end's (--measure-end)\n"
    "  --aet T          the application's measured time on this target (s): prints PETE\n"
    "  --to-end         do not stop: the times are taken when the run could stop (the same\n"
    "                   PET and SET), and the run goes on to MPI_Finalize; its own time\n"
    "                   (MPI_Init to MPI_Finalize, slowest rank) is printed as AET, with\n"
    "                   PETE: how well the signature predicts this run, free of the\n"
    "                   run-to-run noise that an AET from another run carries\n"
    "  --ignore-args    run even if the program or its arguments differ from the signature's\n"
    "  --measure-end    also time a relevant phase that occurs once, at the very end\n"
    "                   (MPI_Finalize's): the run cannot stop early then.  By default such a\n"
    "                   phase is estimated as its base time x the rank's measured ratio\n"
    "                   (marked `estimated`) while it holds under half the rank's time;\n"
    "                   holding more, it is timed and the run goes to its end (said)\n"
    "  --timeout S      stop the run after S seconds and fail (default: a minute plus ten\n"
    "                   times the traced run's AET; 0: never): a hang is reported, not waited\n"
    "                   for\n"
    "  LAUNCH           the same launch as traced, e.g. mpirun -np 4 ./app args\n"
    "\n"
    "Prints `PET = T s`, `SET = T s` (MPI_Init to the stop, slowest rank), `wall = T s`\n"
    "(the whole launch), the per-phase table, and with --aet `AET` and `PETE`; writes them to\n"
    "DIR/prediction.xml (`pas2p show` prints it).  A run that does not follow the signature\n"
    "(other np, input or binary) is stopped and reported.\n";

int pas2p_cmd_predict(int argc, char **argv)
{
    /* 3: odd, the median is a measured occurrence and one outlier cannot move it; rare
     * phases after 1 % of the run (--help, validation/bench/results/predict.md) */
    pas2p_predict_opts_t po = {.occurrences = 3, .rare_after = 0.01, .timeout_s = -1};
    pas2p_pipeline_opts_t o = {.cmd = "predict", .backend = &pas2p_backend_predict,
                               .backend_opts = &po};
    char occ_what[160];
    snprintf(occ_what, sizeof occ_what, "a number from 1 to %d (the signature locates %d "
             "occurrences per phase, the first warms up)", PAS2P_SIG_OCC - 1, PAS2P_SIG_OCC);
    const pas2p_opt_t opts[] = {
        {.name = "-o", .kind = PAS2P_OPT_STRING, .dst = &o.dir, .what = "a directory"},
        {.name = "--occurrences", .kind = PAS2P_OPT_LONG, .dst = &po.occurrences, .min = 1,
         .max = PAS2P_SIG_OCC - 1, .what = occ_what},
        {.name = "--aet", .kind = PAS2P_OPT_DOUBLE, .dst = &o.aet, .min = 0, .max = 1e12,
         .min_open = 1, .what = "a time in seconds > 0"},
        {.name = "--rare-after", .kind = PAS2P_OPT_DOUBLE, .dst = &po.rare_after, .min = 0,
         .max = 1, .what = "a share of the run from 0 to 1"},
        {.name = "--to-end", .kind = PAS2P_OPT_FLAG, .dst = &po.to_end},
        {.name = "--ignore-args", .kind = PAS2P_OPT_FLAG, .dst = &po.ignore_args},
        {.name = "--measure-end", .kind = PAS2P_OPT_FLAG, .dst = &po.measure_end},
        {.name = "--timeout", .kind = PAS2P_OPT_DOUBLE, .dst = &po.timeout_s, .min = 0,
         .max = 1e9, .what = "seconds (0: never)"},
    };
    const pas2p_cli_t cli = {.cmd = "predict", .usage = usage, .opts = opts,
                             .nopts = sizeof opts / sizeof *opts, .npos_max = 1,
                             .pos_what = "one signature", .dashdash = 1};
    pas2p_args_t args;
    int rc = pas2p_cli_parse(&cli, argc, argv, &args);
    if (rc)
        return rc == PAS2P_CLI_HELP ? PAS2P_EXIT_OK : rc;
    if (!args.npos) {
        pas2p_err("predict", "no signature (usage: pas2p predict SIG.xml -- mpirun -np N ./app)");
        return PAS2P_EXIT_USAGE;
    }
    if (args.rest >= argc) {
        pas2p_err("predict", "no command to run (usage: pas2p predict SIG.xml -- mpirun -np N ./app)");
        return PAS2P_EXIT_USAGE;
    }
    if (po.to_end && o.aet > 0) {
        pas2p_err("predict", "--to-end measures the run's own AET: give --to-end or --aet, not both");
        return PAS2P_EXIT_USAGE;
    }
    o.sig_path = args.pos[0];
    po.launch = argv + args.rest;
    po.nlaunch = argc - args.rest;
    char err[4400];
    rc = pas2p_pipeline_run(&o, NULL, err, sizeof err);
    if (rc && err[0])
        pas2p_err("predict", "%s", err);
    return rc;
}
