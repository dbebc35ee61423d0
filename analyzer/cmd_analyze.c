/* `pas2p analyze TRACE_DIR [options]`: the command line of the analysis engine
 * (analyze.c, pas2p_analyze).  Parses with the command-line kit (pas2p_cli.h; the one
 * option table, shared with bin/pas2p-analyze), calls the engine and prints what it
 * returns.  With --mpi K it runs bin/pas2p-analyze (mpi_analyze.c) as K MPI processes
 * under a launcher instead. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pas2p_analyzer.h"
#include "pas2p_cli.h"
#include "pas2p_launch.h"
#include "pas2p_signature.h"

static const char usage[] =
    "usage: pas2p analyze TRACE_DIR [-o SIGNATURE.xml] [--jobs N] [--relevance F]\n"
    "                     [--compute-similarity F] [--size-tolerance F] [--size-floor B]\n"
    "                     [--inline-events N|auto] [--skew F] [--window N]\n"
    "                     [--phases global|local] [--logical global|local]\n"
    "                     [--locate auto|anchors|ordinals] [--strict] [--all-ranks]\n"
    "                     [--mpi K [-- LAUNCHER...]]\n"
    "\n"
    "Finds the phases (repeating slices of the run with their computation) and their\n"
    "weights, the relevant phases (weight x time >= F x AET, default 0.01) and their coverage,\n"
    "and picks the representative rank (EPAS: preliminary PET closest to AET).  Prints\n"
    "`events`, `relevant phases`, `coverage`, `AET`, `PET` (base machine: relevant phases\n"
    "plus the explicit remainder), `TFAT`, and the representative rank's phase table, and\n"
    "writes the signature (signature/FORMAT.md; default TRACE_DIR/signature.xml).\n"
    "When TRACE_DIR holds the other runs of `pas2p trace --runs N` (TRACE_DIR/run-K), each\n"
    "is analysed the same way and every phase they all have gets their median times too\n"
    "(`base runs = N`; predict pairs with those); the rest is the kept run's.\n"
    "\n"
    "  -o SIGNATURE.xml        where to write the signature\n"
    "  --jobs N                ranks analysed in parallel (default: number of cores)\n"
    "  --compute-similarity F  occurrences are the same phase when their computation is\n"
    "                          >= F alike (default 0.85 on instruction counts; 0.5 on time\n"
    "                          when the trace has no counters: scheduling noise)\n"
    "  --phases MODE           global (default): one phase table for all ranks, every\n"
    "                          occurrence a slice across all ranks that is communication-\n"
    "                          closed (no message, request or collective crosses it), cut\n"
    "                          where each rank's loops propose; local: each rank's own\n"
    "                          phases (EPAS), ids per rank, not closed\n"
    "  --locate HOW            how `predict` finds each occurrence in the target run\n"
    "                          (global phases): ordinals (the calls before it, counted),\n"
    "                          anchors (the all-rank blocking collectives before it; the\n"
    "                          calls between two of them may then vary from run to run,\n"
    "                          and phases are cut at them only), or auto (the default:\n"
    "                          anchors when a rank's wildcard receives make its calls\n"
    "                          follow arrivals, as a farm's, or when its wildcard probes\n"
    "                          find messages in >= 5 % of its calls and its phases repeat\n"
    "                          more when located by anchors: both are made, as MUMPS's\n"
    "                          solves need).  anchors for a program whose\n"
    "                          set-up or steps deal work out at run time (NWChem's DFT):\n"
    "                          the divergence `predict` reports says when\n"
    "  --size-tolerance F      a message size within F of one the call had before is the same\n"
    "                          event (the closest such size's)\n"
    "                          (default 0.9: sizes within 10x; orders of magnitude apart are\n"
    "                          different events; 0.05 was the per-rank default)\n"
    "  --size-floor B          message sizes at most B bytes apart are the same event\n"
    "                          whatever their ratio (default 1024: a message of a few hundred\n"
    "                          bytes costs its latency; 0 with --phases local)\n"
    "  --inline-events N|auto an inner loop of at most N events in all is part of the\n"
    "                          enclosing loop's phase, not phases of its own.  auto (the\n"
    "                          default): 16, raised x4 (up to 4096) while a phase carrying\n"
    "                          >= 5 % of a rank's time, >= 3 % of its occurrences slower\n"
    "                          than 3x its median, has a mean more than --skew above its\n"
    "                          median (e.g. a pipeline's fill in the first iteration of a\n"
    "                          short inner loop), and the coarser phases are more even\n"
    "  --skew F                the auto granularity's limit on (mean - median) / mean\n"
    "                          (default 0.2)\n"
    "  --window N              the longest loop body looked for, in calls (default 4096):\n"
    "                          a loop whose iterations make more calls is not found, and a\n"
    "                          run made of it comes out as one phase of weight 1\n"
    "  --logical MODE          also compute the logical trace: global (PAS2P's Lamport rules\n"
    "                          across ranks) or local (each rank's order, EPAS); prints\n"
    "                          `logical time` (its length in ticks)\n"
    "  --strict                refuse a truncated rank file (exit 2) instead of analysing\n"
    "                          what is there (signature written, exit 3)\n"
    "  --all-ranks             print every rank's phase table\n"
    "  --mpi K                 run as K MPI processes (bin/pas2p-analyze), each analysing\n"
    "                          every K-th rank file with --jobs threads (default: the cores\n"
    "                          over the processes on its node), for traces larger than one\n"
    "                          node handles; process 0 gathers the phase tables and writes\n"
    "                          the signature (TRACE_DIR must be readable on every node).\n"
    "                          The launcher (default: mpirun) goes after --; `-np K` and the\n"
    "                          program are appended.  `mpirun -np K pas2p-analyze TRACE_DIR\n"
    "                          [options]` does the same by hand\n";

/* --compute-similarity F: the same fraction on instructions and on time */
static int parse_similarity(const char *v, void *dst)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (!*v || *end || errno || !(d >= 0 && d <= 1))
        return -1;
    pas2p_analysis_opts_t *a = dst;
    a->compute_similarity = a->compute_similarity_time = d;
    return 0;
}

/* --inline-events N|auto */
static int parse_inline(const char *v, void *dst)
{
    pas2p_analyze_opts_t *o = dst;
    if (!strcmp(v, "auto")) {
        o->inline_auto = 1;
        return 0;
    }
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (!*v || *end || errno || n < 0 || n > 1000000)
        return -1;
    o->analysis.inline_events = (uint32_t)n;
    o->inline_auto = 0;
    return 0;
}

static const char *const modes[] = {"local", "global", NULL}; /* index: global or not */
static const char *const locates[] = {"ordinals", "anchors", "auto", NULL}; /* 2: auto */

int pas2p_analyze_parse(int argc, char **argv, int quiet, pas2p_analyze_opts_t *o, long *mpi,
                        int *dashp)
{
    pas2p_analyze_defaults(o);
    long k = 0, size_floor = (long)o->analysis.size_floor, window = (long)o->analysis.window;
    int global = 1, locate = 2;
    const pas2p_opt_t opts[] = {
        {.name = "-o", .kind = PAS2P_OPT_STRING, .dst = &o->signature,
         .what = "a file name"},
        {.name = "--jobs", .kind = PAS2P_OPT_LONG, .dst = &o->jobs, .min = 1, .max = 1024,
         .what = "a number from 1 to 1024"},
        {.name = "--relevance", .kind = PAS2P_OPT_DOUBLE, .dst = &o->analysis.relevance,
         .min = 0, .max = 1, .what = "a fraction in [0, 1]"},
        {.name = "--compute-similarity", .kind = PAS2P_OPT_CUSTOM, .dst = &o->analysis,
         .parse = parse_similarity, .what = "a fraction in [0, 1]"},
        {.name = "--size-tolerance", .kind = PAS2P_OPT_DOUBLE, .dst = &o->analysis.size_tolerance,
         .min = 0, .max = 1, .what = "a fraction in [0, 1]", .seen = &o->size_tolerance_given},
        {.name = "--size-floor", .kind = PAS2P_OPT_LONG, .dst = &size_floor, .min = 0,
         .max = 1e15, .what = "a number of bytes", .seen = &o->size_floor_given},
        {.name = "--inline-events", .kind = PAS2P_OPT_CUSTOM, .dst = o, .parse = parse_inline,
         .what = "'auto' or a number from 0 to 1000000"},
        {.name = "--skew", .kind = PAS2P_OPT_DOUBLE, .dst = &o->skew, .min = 0, .max = 1,
         .what = "a fraction in [0, 1]"},
        {.name = "--window", .kind = PAS2P_OPT_LONG, .dst = &window, .min = 2, .max = 1 << 20,
         .what = "a number of calls from 2 to 1048576"},
        {.name = "--phases", .kind = PAS2P_OPT_CHOICE, .dst = &global, .choices = modes,
         .what = "'global' or 'local'"},
        {.name = "--logical", .kind = PAS2P_OPT_CHOICE, .dst = &o->logical, .choices = modes,
         .what = "'global' or 'local'"},
        {.name = "--locate", .kind = PAS2P_OPT_CHOICE, .dst = &locate, .choices = locates,
         .what = "'auto', 'anchors' or 'ordinals'"},
        {.name = "--strict", .kind = PAS2P_OPT_FLAG, .dst = &o->strict},
        {.name = "--all-ranks", .kind = PAS2P_OPT_FLAG, .dst = &o->all_ranks},
        /* last: the command's own (bin/pas2p-analyze is one of the K processes) */
        {.name = "--mpi", .kind = PAS2P_OPT_LONG, .dst = &k, .min = 1, .max = 100000,
         .what = "a number of processes from 1 to 100000"},
    };
    pas2p_cli_t cli = {.cmd = "analyze", .usage = usage, .opts = opts,
                       .nopts = sizeof opts / sizeof *opts - (mpi ? 0 : 1), .npos_max = 1,
                       .pos_what = "one trace directory", .quiet = quiet};
    /* `-- LAUNCHER...` (with --mpi) is not parsed: the kit's dashdash would add "the command
     * goes after --" to analyze's errors, which take no command */
    int dash = argc;
    for (int i = 1; mpi && i < argc; i++)
        if (!strcmp(argv[i], "--")) {
            dash = i;
            break;
        }
    pas2p_args_t args;
    int rc = pas2p_cli_parse(&cli, dash, argv, &args);
    if (rc)
        return rc;
    o->analysis.global = global;
    o->analysis.size_floor = (uint64_t)size_floor;
    o->analysis.window = (uint32_t)window;
    o->analysis.locate = locate == 2 ? -1 : locate;
    if (!global && locate != 2) {
        if (!quiet)
            pas2p_err("analyze", "--locate needs global phases (--phases global, the default)");
        return PAS2P_EXIT_USAGE;
    }
    if (mpi) {
        *mpi = k;
        *dashp = dash;
    }
    if (!args.npos) {
        if (!quiet)
            pas2p_err("analyze", "needs a trace directory (see --help)");
        return PAS2P_EXIT_USAGE;
    }
    o->trace = args.pos[0];
    return 0;
}

static void print_result(const pas2p_analyze_opts_t *o, const pas2p_analyze_result_t *r, FILE *f)
{
    const pas2p_signature_t *sig = &r->sig;
    const pas2p_global_info_t *g = &r->ginfo;
    fprintf(f, "trace = %s\nnp = %d\n", o->trace, r->np);
    fprintf(f, "events = %llu\n", (unsigned long long)r->events);
    fprintf(f, "representative rank = %d\n", r->representative);
    if (r->global) {
        fprintf(f, "phases = %u\n", g->phases);
        fprintf(f, "phase table = global (one for all ranks, every occurrence "
                "communication-closed)\n");
        fprintf(f, "occurrences = %llu (slices across all ranks, each communication-closed; "
                "the largest %llu events)\n", (unsigned long long)g->occurrences,
                (unsigned long long)g->largest_occurrence);
        if (g->characteristic_comm != UINT32_MAX)
            fprintf(f, "characteristic communicator = %u%s\n", g->characteristic_comm,
                    g->characteristic_comm ? "" : " (MPI_COMM_WORLD)");
        else
            fprintf(f, "characteristic communicator = none (no collective on all ranks in "
                    "the phases: point-to-point only)\n");
        if (g->anchored && g->anchored_probes) {
            fprintf(f, "located = anchors (a rank's wildcard probes find messages among its "
                    "other calls: located by the all-rank blocking collectives before them, "
                    "%.1f %% of the run is in phases that repeat, %.1f %% by ordinals; "
                    "--locate ordinals to choose)\n", 100 * g->repeating,
                    100 * g->repeating_ordinals);
        } else {
            fprintf(f, "located = %s\n",
                    !g->anchored ? "ordinals (predict finds each occurrence by the calls before it)"
                    : o->analysis.locate == 1
                        ? "anchors (--locate anchors: by the all-rank blocking collectives before "
                          "it; the calls between two of them may vary)"
                        : "anchors (a rank's wildcard receives make its calls follow arrivals: "
                          "predict finds each occurrence by the all-rank blocking collectives "
                          "before it; the calls between two of them may vary)");
        }
    } else {
        fprintf(f, "phases = %u\n", r->phases);
        fprintf(f, "phase table = per rank (%s)\n",
                r->local_why[0] ? r->local_why : "local: the representative rank's");
    }
    fprintf(f, "relevant phases = %u\n", r->relevant);
    fprintf(f, "inline events = %u\n", r->inline_events);
    if (r->skew_before >= 0)
        fprintf(f, "granularity = coarser: a heavy phase's mean was %.0f %% above its median "
                "(a pipeline fill?), now %.0f %%\n", 100 * r->skew_before, 100 * r->skew_after);
    if (r->runs_found)
        fprintf(f, "base runs = %u (the kept run and the %u others of pas2p trace --runs in "
                "TRACE_DIR/run-K; %u phase(s) pooled over %u: predict pairs its occurrences "
                "with their medians)\n", 1 + r->runs_found, r->runs_found, r->phases_pooled,
                r->runs_pooled ? r->runs_pooled : 1);
    fprintf(f, "coverage = %.2f %%\n", 100 * sig->coverage);
    fprintf(f, "remainder = %.6f s\n", sig->remainder_s);
    fprintf(f, "AET = %.6f s\n", r->aet_s);
    fprintf(f, "PET = %.6f s\n", sig->pet_s);
    double pete = r->aet_s > 0 ? 100 * (sig->pet_s - r->aet_s) / r->aet_s : 0;
    fprintf(f, "PETE = %+.2f %%\n", fabs(pete) < 0.005 ? 0.0 : pete); /* (not "-0.00") */
    if (r->shared_note[0]) /* (a result line, not stderr: an error stays one line) */
        fprintf(f, "note: %s\n", r->shared_note);
    /* (two testers read a cut trace's coverage 100 % and PETE 0 as a healthy run) */
    if (r->truncated_ranks)
        fprintf(f, "note: %u rank file(s) cut short, analysed to their last complete event (said "
                "above): this signature is of a cut run, its coverage and PETE of the part that "
                "was read; exit 3 (--strict refuses such a trace)\n", r->truncated_ranks);
    /* a run that is one slice of weight 1 (no collective to cut at, or nothing repeats):
     * the signature is the run, and the consumers' costs are the run's */
    if (sig->representative < sig->nranks && sig->pet_s > 0) {
        const pas2p_sig_rank_t *R = &sig->ranks[sig->representative];
        for (uint32_t k = 0; k < R->nphases; k++) {
            const pas2p_sig_phase_t *p = &R->phases[k];
            if (p->weight == 1 && p->time_mean_s >= 0.9 * sig->pet_s)
                fprintf(f, "note: phase %u, of weight 1, holds %.1f %% of the run: nothing "
                        "repeats in it (%s, or its loop's iterations make more than --window "
                        "%u calls), so predict times it whole and runs to its end, and "
                        "simulate and replay replay it once, at the run's cost\n", p->id,
                        100 * p->time_mean_s / sig->pet_s,
                        r->global ? "no cut where every message sent was received and every "
                                    "rank had done the same collectives came inside it"
                                  : "its calls never came again in the same order",
                        o->analysis.window);
        }
    }
    fprintf(f, "structure = %s\n", r->spmd ? "identical on all ranks (SPMD)"
                                            : "ranks differ (per-rank phase tables below with --all-ranks)");
    if (r->logical_done)
        fprintf(f, "logical time = %llu ticks (%s)\n", (unsigned long long)r->logical_ticks,
                o->logical ? "global" : "local");
    if (r->signature_written)
        fprintf(f, "signature = %s\n", r->signature_path);
    fprintf(f, "TFAT = %.6f s\n", r->tfat_s);
    if (r->global)
        pas2p_signature_print_global(sig, f);
    for (int k = 0; k < r->np; k++)
        if (o->all_ranks || k == r->representative)
            pas2p_signature_print_table(sig, (uint32_t)k, f);
}

int pas2p_analyze_command(const pas2p_analyze_opts_t *o, const pas2p_analyze_dist_t *dist)
{
    pas2p_analyze_result_t res;
    char err[2048];
    int rc = pas2p_analyze(o, dist, &res, err, sizeof err);
    for (char *w = res.warnings, *nl; w && *w; w = nl ? nl + 1 : w + strlen(w)) {
        nl = strchr(w, '\n');
        pas2p_err("analyze", "%.*s", nl ? (int)(nl - w) : (int)strlen(w), w);
    }
    if (res.done)
        print_result(o, &res, stdout);
    if (err[0])
        pas2p_err("analyze", "%s", err);
    /* a cut trace is bad input analysed anyway: the signature is there, the exit says it is
     * of part of the run (a pipeline that goes on unchecked would predict a cut run) */
    if (!rc && res.truncated_ranks && res.signature_written)
        rc = PAS2P_EXIT_PARTIAL;
    pas2p_analyze_result_free(&res);
    return rc;
}

/* `pas2p analyze`: in this process, or with --mpi K as K processes of bin/pas2p-analyze
 * under a launcher (default mpirun): LAUNCHER... -np K pas2p-analyze OPTIONS... */
int pas2p_cmd_analyze(int argc, char **argv)
{
    pas2p_analyze_opts_t o;
    long k = 0;
    int dash, rc = pas2p_analyze_parse(argc, argv, 0, &o, &k, &dash);
    if (rc)
        return rc == PAS2P_CLI_HELP ? PAS2P_EXIT_OK : rc;
    if (!k) {
        if (dash < argc) {
            pas2p_err("analyze", "a launcher after -- needs --mpi K (see --help)");
            return PAS2P_EXIT_USAGE;
        }
        return pas2p_analyze_command(&o, NULL);
    }
    char prog[PATH_MAX];
    if (pas2p_find_beside("PAS2P_ANALYZE_MPI", "pas2p-analyze", prog, sizeof prog) ||
        access(prog, X_OK)) {
        pas2p_err("analyze", "the MPI analyzer %s is missing (build pas2p with MPI; or set "
                  "PAS2P_ANALYZE_MPI)", prog);
        return PAS2P_EXIT_FAIL;
    }
    /* pas2p-analyze and this command's options but --mpi K, under the launcher (the parse
     * succeeded: every argument before -- is an option, its value, or the trace) */
    char **args = calloc((size_t)argc + 1, sizeof *args), **cmd = NULL;
    int na = 0, n = 0;
    if (args) {
        args[na++] = prog;
        for (int i = 1; i < dash; i++) {
            const char *a = argv[i];
            if (!strcmp(a, "--mpi")) {
                i++;
                continue;
            }
            args[na++] = argv[i];
            if (a[0] == '-' && a[1] && strcmp(a, "--strict") && strcmp(a, "--all-ranks") && i + 1 < dash)
                args[na++] = argv[++i]; /* its value */
        }
        cmd = pas2p_mpi_argv(argv + dash + 1, argc - dash - 1, k, args, na, &n);
    }
    free(args);
    if (!cmd) {
        pas2p_err("analyze", "out of memory");
        return PAS2P_EXIT_FAIL;
    }
    /* process 0's exit status comes back through a file (mpi_analyze.c) */
    char tmpl[] = "/tmp/pas2p-analyze-XXXXXX", status[64];
    if (!mkdtemp(tmpl)) {
        pas2p_err("analyze", "cannot make a directory in /tmp: %s", strerror(errno));
        free(cmd);
        return PAS2P_EXIT_FAIL;
    }
    snprintf(status, sizeof status, "%s/status", tmpl);
    setenv("PAS2P_ANALYZE_STATUS", status, 1);
    static const char *const vars[] = {"PAS2P_ANALYZE_STATUS"};
    pas2p_launch_info_t li;
    rc = pas2p_launch_info("pas2p analyze", NULL, cmd, n, vars, 1, &li);
    unsetenv("PAS2P_ANALYZE_STATUS");
    FILE *f = fopen(status, "r");
    int code;
    if (f && fscanf(f, "%d", &code) == 1) {
        if (rc && li.no_sync) { /* process 0 finished and said how: Open MPI's race */
            char note[512];
            pas2p_launch_no_sync_note(note, sizeof note, rc, "its part");
            fprintf(stderr, "pas2p analyze: note: %s\n", note);
            rc = 0;
        }
        if (!rc)
            rc = code;
    }
    /* process 0 reports its own failures; a launch that ended before it could (the
     * launcher's own refusal: fewer slots than K) gets the line here */
    if (!f && rc)
        pas2p_err("analyze", "the analysis under '%s -np %ld' exited %d before its process "
                  "0 reported (the launcher's message above): fewer slots than --mpi %ld? give "
                  "the launcher after -- (-- mpirun --oversubscribe, a host file)", cmd[0], k,
                  rc, k);
    free(cmd);
    if (f)
        fclose(f);
    unlink(status);
    rmdir(tmpl);
    return rc;
}
