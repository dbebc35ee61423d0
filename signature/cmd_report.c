/* `pas2p report SIGNATURE.xml [PREDICTION.xml...] [-o REPORT.html]`: the signature and its
 * predictions on one self-contained HTML page, or its sections for another page (report.c). */
#include <stdio.h>
#include <string.h>

#include "pas2p_cli.h"
#include "pas2p_report.h"

static const char usage[] =
    "usage: pas2p report SIGNATURE.xml [PREDICTION.xml...] [-o REPORT.html] [--title TEXT]\n"
    "                    [--fragment]\n"
    "\n"
    "Writes one self-contained HTML page (no network resource: it opens anywhere) with the\n"
    "signature's phase table, where each rank's time goes, the timeline of the run's first\n"
    "phase occurrences on every rank, and, for each prediction given (the prediction.xml of\n"
    "predict, replay or simulate), PET against AET and the per-phase base and target times.\n"
    "\n"
    "  -o REPORT.html   the page (default: report.html)\n"
    "  --title TEXT     the page's title (default: the application's command)\n"
    "  --fragment       write the page's sections only, to go into another page's <body>:\n"
    "                   one <section class=pas2p-report> with the <style> they need, the\n"
    "                   --title (if any) as its <h2>, the sections under <h3>\n"
    "\n"
    "Prints `report = FILE`.\n";

int pas2p_cmd_report(int argc, char **argv)
{
    const char *out = "report.html", *title = NULL;
    int fragment = 0;
    const pas2p_opt_t opts[] = {
        {.name = "-o", .kind = PAS2P_OPT_STRING, .dst = &out, .what = "a file name"},
        {.name = "--title", .kind = PAS2P_OPT_STRING, .dst = &title, .what = "a text"},
        {.name = "--fragment", .kind = PAS2P_OPT_FLAG, .dst = &fragment},
    };
    const pas2p_cli_t cli = {.cmd = "report", .usage = usage, .opts = opts,
                             .nopts = sizeof opts / sizeof *opts, .npos_max = 8,
                             .pos_what = "a signature and at most 7 predictions"};
    pas2p_args_t a;
    int rc = pas2p_cli_parse(&cli, argc, argv, &a);
    if (rc)
        return rc == PAS2P_CLI_HELP ? 0 : rc;
    if (!a.npos) {
        pas2p_err("report", "no signature (usage: pas2p report SIG.xml [PREDICTION.xml...])");
        return PAS2P_EXIT_USAGE;
    }
    pas2p_report_opts_t o = {.signature = a.pos[0], .predictions = a.pos + 1,
                             .npredictions = (size_t)a.npos - 1, .out = out, .title = title,
                             .fragment = fragment};
    char err[2048];
    rc = pas2p_report_write(&o, err, sizeof err);
    if (rc) {
        pas2p_err("report", "%s", err);
        return rc == -2 ? PAS2P_EXIT_USAGE : PAS2P_EXIT_FAIL;
    }
    printf("report = %s\n", out);
    return 0;
}
