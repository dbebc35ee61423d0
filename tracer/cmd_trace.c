/* `pas2p trace [-o DIR] [--counters LIST] [--buffer SIZE] -- LAUNCH...`
 *
 * Runs LAUNCH with libpas2p preloaded in every rank: for Open MPI's launchers the library
 * and settings are passed with `-x` (so remote nodes get them too); any other launcher
 * (or a singleton ./app) gets them through the environment.  The application's exit
 * status is passed through. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <papi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pas2p_cli.h"
#include "pas2p_launch.h"
#include "pas2p_trace.h"

static const char usage[] =
    "usage: pas2p trace [-o DIR] [--counters LIST] [--buffer SIZE] -- LAUNCH...\n"
    "\n"
    "Runs an MPI application with libpas2p interposed on every rank and writes its trace\n"
    "to DIR: one binary file per rank and a manifest (see tracer/FORMAT.md).\n"
    "\n"
    "  -o DIR           trace directory; must not exist or be empty\n"
    "                   (default: pas2p-trace-YYYYmmdd-HHMMSS)\n"
    "  --counters LIST  comma-separated PAPI events recorded per event (default PAPI_TOT_INS;\n"
    "                   'none' for time only). Machines without counters trace time only.\n"
    "  --buffer SIZE    per-rank buffer written when full, e.g. 1M (default 256K)\n"
    "  LAUNCH           e.g. mpirun -np 4 ./app args  (or a singleton ./app)\n"
    "\n"
    "Prints `trace = DIR`, `np`, `events` and `AET` when the run ends; exits with the\n"
    "application's status.\n";

static int check_counters(const char *list)
{
    if (!strcmp(list, "none"))
        return 0;
    int rc = PAPI_library_init(PAPI_VER_CURRENT);
    if (rc != PAPI_VER_CURRENT) {
        pas2p_err("trace", "PAPI unavailable (%s); use --counters none",
                  rc < 0 ? PAPI_strerror(rc) : "version mismatch");
        return -1;
    }
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", list);
    int n = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int code;
        if (++n > PAS2P_MAX_COUNTERS) {
            pas2p_err("trace", "at most %d counters", PAS2P_MAX_COUNTERS);
            return -1;
        }
        if (strlen(t) >= PAS2P_COUNTER_NAME_LEN || PAPI_event_name_to_code(t, &code) != PAPI_OK) {
            pas2p_err("trace", "unknown counter '%s' (see papi_avail)", t);
            return -1;
        }
    }
    return 0;
}

int pas2p_cmd_trace(int argc, char **argv)
{
    const char *dir = NULL, *counters = getenv("PAS2P_COUNTERS"), *buffer = NULL;
    const pas2p_opt_t opts[] = {
        {.name = "-o", .kind = PAS2P_OPT_STRING, .dst = &dir, .what = "a directory"},
        {.name = "--counters", .kind = PAS2P_OPT_STRING, .dst = &counters,
         .what = "a comma-separated list of PAPI events, or none"},
        {.name = "--buffer", .kind = PAS2P_OPT_STRING, .dst = &buffer, .what = "a size, e.g. 1M"},
    };
    const pas2p_cli_t cli = {.cmd = "trace", .usage = usage, .opts = opts,
                             .nopts = sizeof opts / sizeof *opts, .dashdash = 1};
    pas2p_args_t a;
    int rc = pas2p_cli_parse(&cli, argc, argv, &a);
    if (rc)
        return rc == PAS2P_CLI_HELP ? 0 : rc;
    int i = a.rest;
    if (i >= argc) {
        pas2p_err("trace", "no command to run (usage: pas2p trace [-o DIR] -- mpirun -np N ./app)");
        return PAS2P_EXIT_USAGE;
    }
    char **launch = argv + i;
    int nlaunch = argc - i;

    char defdir[64], absdir[PATH_MAX];
    if (!dir) {
        pas2p_default_dir("pas2p-trace", defdir, sizeof defdir);
        dir = defdir;
    }
    if (counters && *counters && check_counters(counters))
        return PAS2P_EXIT_USAGE;
    char lib[PATH_MAX];
    if (pas2p_find_library("pas2p trace", lib, sizeof lib))
        return 2;
    if (pas2p_prepare_dir("pas2p trace", dir))
        return 2;
    if (!realpath(dir, absdir)) {
        pas2p_err("trace", "%s: %s", dir, strerror(errno));
        return PAS2P_EXIT_USAGE;
    }

    /* the command line recorded in the manifest */
    size_t cl = 0;
    char cmd[4096] = "";
    for (int k = 0; k < nlaunch && cl < sizeof cmd; k++)
        cl += (size_t)snprintf(cmd + cl, sizeof cmd - cl, "%s%s", k ? " " : "", launch[k]);
    setenv("PAS2P_TRACE_DIR", absdir, 1);
    setenv("PAS2P_COMMAND", cmd, 1);
    if (counters && *counters)
        setenv("PAS2P_COUNTERS", counters, 1);
    if (buffer)
        setenv("PAS2P_BUFFER_SIZE", buffer, 1);

    static const char *const xs[] = {"PAS2P_TRACE_DIR", "PAS2P_COMMAND", "PAS2P_COUNTERS",
                                     "PAS2P_BUFFER_SIZE", "PAS2P_QUIET"};
    int code = pas2p_launch("pas2p trace", lib, launch, nlaunch, xs, sizeof xs / sizeof *xs);
    if (code == 127)
        return 127;

    pas2p_manifest_t m;
    char err[1024], rank0[PATH_MAX];
    if (pas2p_manifest_read(absdir, &m, err, sizeof err)) {
        pas2p_rank_path(absdir, 0, rank0, sizeof rank0);
        if (access(rank0, F_OK))
            pas2p_err("trace", "no trace in %s: no rank called MPI_Init with libpas2p "
                      "(not an MPI program, or the launcher dropped LD_PRELOAD)", dir);
        else
            pas2p_err("trace", "incomplete trace in %s: no manifest (the run %s; see the "
                      "errors above); rank files are kept", dir,
                      code ? "failed" : "did not reach MPI_Finalize, or could not write");
        return code ? code : PAS2P_EXIT_FAIL;
    }
    if (!m.complete) {
        pas2p_err("trace", "incomplete trace in %s: some ranks could not write their files "
                  "(see the errors above)", dir);
        pas2p_manifest_free(&m);
        return code ? code : PAS2P_EXIT_FAIL;
    }
    printf("trace = %s\n", dir);
    printf("np = %d\n", m.np);
    printf("events = %llu\n", (unsigned long long)m.events);
    printf("AET = %.6f s\n", m.aet_s);
    if (code)
        pas2p_err("trace", "the application exited with status %d", code);
    pas2p_manifest_free(&m);
    return code;
}
