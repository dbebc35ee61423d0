/* pas2p: the single front end.  It only dispatches; each command lives in its module
 * (tracer/: trace, dump; analyzer/: analyze; signature/: show, predict; simbackend/:
 * replay, simulate). */
#include <stdio.h>
#include <string.h>

#include "pas2p_analyzer.h"
#include "pas2p_cli.h"
#include "pas2p_report.h"
#include "pas2p_signature.h"
#include "pas2p_sim.h"
#include "pas2p_trace.h"
#include "pas2p_version.h"

typedef int (*cmd_fn)(int argc, char **argv);

static const struct {
    const char *name;
    cmd_fn fn;
    const char *summary;
} commands[] = {
    {"trace", pas2p_cmd_trace, "run an MPI application with libpas2p and write its trace"},
    {"dump", pas2p_cmd_dump, "print a trace: per-rank profile, or every event of one rank"},
    {"analyze", pas2p_cmd_analyze, "find phases, weights, relevant phases; write the signature"},
    {"show", pas2p_cmd_show, "print a signature's phase table"},
    {"predict", pas2p_cmd_predict, "run the application on this target under its signature: PET"},
    {"replay", pas2p_cmd_replay, "replay the signature's phases with real MPI on this target: PET"},
    {"simulate", pas2p_cmd_simulate, "replay the signature's phases in SimGrid on a platform: PET"},
    {"calibrate", pas2p_cmd_calibrate, "measure this machine: a SimGrid platform for simulate"},
    {"report", pas2p_cmd_report, "a signature and its predictions as one self-contained HTML page"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: pas2p COMMAND [ARGS...]   (pas2p COMMAND --help for each)\n\n"
               "Signature-based performance prediction for MPI applications.\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return PAS2P_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        printf("pas2p %s (trace format %u)\n", PAS2P_VERSION_STRING, PAS2P_TRACE_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].fn(argc - 1, argv + 1);
    pas2p_err(NULL, "unknown command '%s' (pas2p --help lists them)", argv[1]);
    return PAS2P_EXIT_USAGE;
}
