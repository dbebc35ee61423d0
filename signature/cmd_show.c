/* `pas2p show FILE`: a signature's phase tables, or a prediction result (the
 * prediction.xml every path writes).  Parses, reads, prints: nothing else. */
#include <inttypes.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>

#include "pas2p_cli.h"
#include "pas2p_pet.h"
#include "pas2p_signature.h"
#include "pas2p_times.h"

static const char usage[] =
    "usage: pas2p show SIGNATURE.xml [--rank R | --all-ranks]\n"
    "       pas2p show PREDICTION.xml | RESULTS_DIR\n"
    "\n"
    "Prints a signature: the application, the analysis (AET, PET, coverage, remainder), the\n"
    "global phase table when the phases are global (phase, weight, PhaseET of the slowest\n"
    "rank, W x PhaseET, % of AET, each rank's share) and the phase table of the\n"
    "representative rank (or of rank R: that rank's view, or of every rank): phase, events,\n"
    "instructions, weight, PhaseET, PhaseET x W, % of AET.\n"
    "Or a prediction result (predict, replay, simulate write DIR/prediction.xml; DIR alone\n"
    "names it): PET, SET, AET and PETE when known, how the run ended, and the per-phase\n"
    "table.  A `simulate --full-trace` results directory has no phases: its PET.\n";

static void print_signature(const pas2p_signature_t *s, const char *path, long rank, int all)
{
    printf("signature = %s\ncommand = %s\nnp = %u\n", path, s->command, s->np);
    printf("events = %" PRIu64 "\nrepresentative rank = %u\n", s->events, s->representative);
    uint32_t nrel = 0, rep = 0;
    for (uint32_t r = 0; r < s->nranks; r++)
        if (s->ranks[r].rank == s->representative)
            rep = r;
    for (uint32_t i = 0; i < s->ranks[rep].nphases; i++)
        nrel += s->ranks[rep].phases[i].relevant;
    printf("relevant phases = %u\ncoverage = %.2f %%\nremainder = %.6f s\n", nrel,
           100 * s->coverage, s->remainder_s);
    printf("AET = %.6f s\nPET = %.6f s\n", s->aet_s, s->pet_s);
    uint32_t pooled = 0, runs = 0; /* pas2p trace --runs N's other runs, pooled by analyze */
    for (uint32_t r = 0; r < s->nranks; r++)
        for (uint32_t i = 0; i < s->ranks[r].nphases; i++)
            if (s->ranks[r].phases[i].runs > 1) {
                pooled++;
                if (s->ranks[r].phases[i].runs > runs)
                    runs = s->ranks[r].phases[i].runs;
            }
    if (pooled)
        printf("base runs = %u (%u phase(s), counted over the ranks, with the runs' median times: "
               "predict pairs with them)\n", runs, pooled);
    char untraced[768];
    if (pas2p_signature_untraced_note(s, untraced, sizeof untraced))
        printf("note: %s\n", untraced);
    printf("phase table = %s\n", s->global ? "global (one for all ranks, every occurrence "
                                             "communication-closed)" : "per rank");
    if (s->global && rank < 0)
        pas2p_signature_print_global(s, stdout);
    for (uint32_t r = 0; r < s->nranks; r++)
        if (rank >= 0 ? s->ranks[r].rank == (uint32_t)rank : all || r == rep)
            pas2p_signature_print_table(s, r, stdout);
}

/* a `simulate --full-trace` results directory (simbackend: its actions and every rank's
 * times, completed, with no phase lines, and no prediction.xml, which needs phases): 1 and
 * the slowest rank's simulated time, else 0 (two testers read show's "a run that diverged
 * or failed writes none" on such a directory as a failure) */
static int full_trace_dir(const char *dir, double *pet, unsigned *nranks)
{
    char p[PATH_MAX + 32], err[256];
    struct stat sb;
    snprintf(p, sizeof p, "%.*s/actions", PATH_MAX, dir);
    if (stat(p, &sb) || !S_ISDIR(sb.st_mode))
        return 0;
    *pet = 0;
    *nranks = 0;
    for (unsigned r = 0;; r++) {
        pas2p_times_file_t tf;
        if (pas2p_times_load(dir, r, &tf, err, sizeof err))
            break;
        int whole = tf.st.status == PAS2P_TIMES_COMPLETED && !tf.nphases;
        if (tf.st.set_s > *pet)
            *pet = tf.st.set_s;
        pas2p_times_file_free(&tf);
        if (!whole)
            return 0;
        ++*nranks;
    }
    return *nranks > 0;
}

int pas2p_cmd_show(int argc, char **argv)
{
    long rank = -1;
    int all = 0, rc;
    const pas2p_opt_t opts[] = {
        {.name = "--rank", .kind = PAS2P_OPT_LONG, .dst = &rank, .min = 0, .max = 1e9,
         .what = "a rank number"},
        {.name = "--all-ranks", .kind = PAS2P_OPT_FLAG, .dst = &all},
    };
    const pas2p_cli_t cli = {.cmd = "show", .usage = usage, .opts = opts,
                             .nopts = sizeof opts / sizeof *opts, .npos_max = 1,
                             .pos_what = "one signature or prediction file"};
    pas2p_args_t args;
    if ((rc = pas2p_cli_parse(&cli, argc, argv, &args)))
        return rc == PAS2P_CLI_HELP ? PAS2P_EXIT_OK : rc;
    if (!args.npos) {
        pas2p_err("show", "no file (usage: pas2p show SIGNATURE.xml | PREDICTION.xml)");
        return PAS2P_EXIT_USAGE;
    }
    const char *path = args.pos[0];
    char err[1024], inside[PATH_MAX + 32];
    struct stat sb;
    if (!stat(path, &sb) && S_ISDIR(sb.st_mode)) { /* a results directory: its prediction */
        snprintf(inside, sizeof inside, "%.*s/prediction.xml", PATH_MAX, path);
        double pet;
        unsigned nranks;
        if (access(inside, F_OK) && full_trace_dir(path, &pet, &nranks)) {
            printf("results = %s\nmethod = simulate --full-trace (every event replayed: no "
                   "phases, so no prediction.xml)\nranks = %u\nPET = %.6f s (the slowest rank's "
                   "simulated time)\n", path, nranks, pet);
            return PAS2P_EXIT_OK;
        }
        if (access(inside, F_OK)) {
            /* the ranks' times files say why, when a rank got as far as writing one */
            snprintf(inside, sizeof inside, "%.*s/rank-00000.times", PATH_MAX, path);
            if (access(inside, F_OK))
                pas2p_err("show", "%s is a directory without a prediction.xml, nor any rank's "
                          "times (a launch that failed before MPI_Init's end, or not a results "
                          "directory)", path);
            else
                pas2p_err("show", "%s is a directory without a prediction.xml (a run that "
                          "diverged or failed writes none: its rank-NNNNN.times say why)", path);
            return PAS2P_EXIT_USAGE;
        }
        path = inside;
    }
    pas2p_prediction_t pred; /* a prediction result, or else a signature */
    int pr = pas2p_prediction_read(path, &pred, err, sizeof err);
    if (pr == 0) {
        printf("prediction = %s\nsignature = %s\napplication = %s\nhost = %s\ndate = %s\n", path,
               pred.signature, pred.application, pred.host, pred.date);
        pas2p_prediction_print(&pred, stdout);
        pas2p_prediction_free(&pred);
        return PAS2P_EXIT_OK;
    }
    pas2p_signature_t s;
    if (pr == -1 || pas2p_signature_read(path, &s, err, sizeof err)) {
        pas2p_err("show", "%s", err);
        return PAS2P_EXIT_USAGE;
    }
    rc = PAS2P_EXIT_OK;
    uint32_t r = 0;
    while (rank >= 0 && r < s.nranks && s.ranks[r].rank != (uint32_t)rank)
        r++;
    if (rank >= 0 && r == s.nranks) {
        pas2p_err("show", "rank %ld is not in %s (np = %u)", rank, path, s.np);
        rc = PAS2P_EXIT_USAGE;
    } else {
        print_signature(&s, path, rank, all);
    }
    pas2p_signature_free(&s);
    return rc;
}
