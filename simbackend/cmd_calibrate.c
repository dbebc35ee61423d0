/* `pas2p calibrate`: parses, then measures this machine and writes its SimGrid platform
 * (calibrate.c), and prints what was measured. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pas2p_cli.h"
#include "pas2p_sim.h"

static const char usage[] =
    "usage: pas2p calibrate [-o PLATFORM.xml] [--hosts N] [--slots S] [--cpu F]\n"
    "                       [--link-bw B] [--name NAME] [--seconds T] [-- LAUNCHER...]\n"
    "\n"
    "Measures this machine for `pas2p simulate`: the replay kernel's speed on one core (the\n"
    "unit of `simulate --base-speed kernel`), and MPI one-way times from 1 byte to 4 MiB\n"
    "between two ranks started by LAUNCHER (default `mpirun`; pas2p appends `-np 2` and its\n"
    "probe).  Writes a SimGrid cluster that reproduces them: N hosts of S cores, host speed\n"
    "= kernel speed x min(F, cores here / (N x S)) (ranks sharing this machine's cores get\n"
    "their share), each host's link half the 1-byte latency, links of B bytes/s, and SMPI's\n"
    "piecewise smpi/lat-factor and smpi/bw-factor fitted so that every message size takes\n"
    "the measured time (linear between the measured sizes).  Takes a few seconds.\n"
    "\n"
    "  -o PLATFORM.xml  where to write it (default: stdout)\n"
    "  --hosts N        hosts in the cluster (default: this machine's cores): one per rank\n"
    "                   to simulate a run of N ranks on this machine\n"
    "  --slots S        cores per host (default 1)\n"
    "  --cpu F          share of a core each slot gets (default 1), e.g. a cgroup quota\n"
    "  --link-bw B      the links' nominal bandwidth in bytes/s (suffixes k, M, G; default:\n"
    "                   the measured bandwidth, bw-factor 1)\n"
    "  --name NAME      the cluster's id and host prefix (default: base)\n"
    "  --seconds T      time spent measuring the kernel (default 1)\n"
    "  LAUNCHER         how to start 2 ranks on two of the machine's hosts, e.g.\n"
    "                   `mpirun --host a,b` or `validation/vcluster/vcluster mpirun NAME`\n"
    "\n"
    "Prints `speed`, `latency`, `bandwidth` (what was measured) and `platform`.\n";

/* a bandwidth in bytes/s: a number with an optional k, M or G (x 1e3, 1e6, 1e9), or -1 */
static double parse_bw(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    double m = !*end ? 1 : !strcmp(end, "k") ? 1e3 : !strcmp(end, "M") ? 1e6 : !strcmp(end, "G") ? 1e9 : -1;
    return m > 0 && v > 0 ? v * m : -1;
}

/* --link-bw */
static int take_bw(const char *value, void *dst)
{
    double v = parse_bw(value);
    if (!(v > 0))
        return -1;
    *(double *)dst = v;
    return 0;
}

/* --name: the cluster's id and host prefix */
static int take_name(const char *value, void *dst)
{
    if (!*value || strspn(value, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") != strlen(value))
        return -1;
    *(const char **)dst = value;
    return 0;
}

int pas2p_cmd_calibrate(int argc, char **argv)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN) > 0 ? sysconf(_SC_NPROCESSORS_ONLN) : 1;
    pas2p_calibrate_opts_t o = {.name = "base", .hosts = cores, .slots = 1, .cores = cores,
                                .cpu = 1, .link_bw = 0, .seconds = 1};
    const pas2p_opt_t opts[] = {
        {.name = "-o", .kind = PAS2P_OPT_STRING, .dst = &o.out, .what = "a file"},
        {.name = "--hosts", .kind = PAS2P_OPT_LONG, .dst = &o.hosts, .min = 1, .max = 100000,
         .what = "a number from 1 to 100000"},
        {.name = "--slots", .kind = PAS2P_OPT_LONG, .dst = &o.slots, .min = 1, .max = 100000,
         .what = "a number from 1 to 100000"},
        {.name = "--cpu", .kind = PAS2P_OPT_DOUBLE, .dst = &o.cpu, .min = 0, .max = 1,
         .min_open = 1, .what = "a share of a core in (0, 1]"},
        {.name = "--link-bw", .kind = PAS2P_OPT_CUSTOM, .dst = &o.link_bw, .parse = take_bw,
         .what = "bytes/s such as 125M"},
        {.name = "--seconds", .kind = PAS2P_OPT_DOUBLE, .dst = &o.seconds, .min = 0.05, .max = 600,
         .what = "a time from 0.05 to 600"},
        {.name = "--name", .kind = PAS2P_OPT_CUSTOM, .dst = &o.name, .parse = take_name,
         .what = "letters, digits, '_', '-' and '.'"},
    };
    const pas2p_cli_t cli = {.cmd = "calibrate", .usage = usage, .opts = opts,
                             .nopts = sizeof opts / sizeof *opts, .npos_max = 0,
                             .pos_what = "the launcher, after --,", .dashdash = 1};
    pas2p_args_t args;
    int rc = pas2p_cli_parse(&cli, argc, argv, &args);
    if (rc)
        return rc == PAS2P_CLI_HELP ? PAS2P_EXIT_OK : rc;
    o.launcher = argv + args.rest;
    o.nlauncher = argc - args.rest;
    pas2p_calibration_t res;
    char err[4400];
    if ((rc = pas2p_calibrate(&o, &res, err, sizeof err))) {
        if (err[0])
            pas2p_err("calibrate", "%s", err);
        return rc;
    }
    if (o.out)
        printf("speed = %.6g\nlatency = %.6g\nbandwidth = %.6g\nplatform = %s\n", res.speed,
               res.latency, res.bandwidth, o.out);
    return PAS2P_EXIT_OK;
}
