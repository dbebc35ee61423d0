/* The command-line kit (pas2p_cli.h): table-driven option parsing and the one-line error
 * every command prints. */
#include "pas2p_cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pas2p_err(const char *cmd, const char *fmt, ...)
{
    char msg[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* one line, whatever the message held */
    for (char *c = msg; *c; c++)
        if (*c == '\n')
            *c = ' ';
    fprintf(stderr, "pas2p%s%s: %s\n", cmd ? " " : "", cmd ? cmd : "", msg);
}

static const pas2p_opt_t *find(const pas2p_cli_t *cli, const char *a)
{
    for (size_t k = 0; k < cli->nopts; k++)
        if (!strcmp(a, cli->opts[k].name) || (cli->opts[k].alias && !strcmp(a, cli->opts[k].alias)))
            return &cli->opts[k];
    return NULL;
}

/* 0, or -1: the value is not what the option needs */
static int take(const pas2p_opt_t *o, const char *v)
{
    char *end;
    switch (o->kind) {
    case PAS2P_OPT_FLAG:
        *(int *)o->dst = 1;
        return 0;
    case PAS2P_OPT_STRING:
        if (!*v)
            return -1;
        *(const char **)o->dst = v;
        return 0;
    case PAS2P_OPT_LONG: {
        errno = 0;
        long n = strtol(v, &end, 10);
        if (!*v || *end || errno || (double)n < o->min || (double)n > o->max)
            return -1;
        *(long *)o->dst = n;
        return 0;
    }
    case PAS2P_OPT_DOUBLE: {
        errno = 0;
        double d = strtod(v, &end);
        if (!*v || *end || errno || !isfinite(d) || d < o->min || d > o->max ||
            (o->min_open && !(d > o->min)))
            return -1;
        *(double *)o->dst = d;
        return 0;
    }
    case PAS2P_OPT_CHOICE:
        for (int k = 0; o->choices && o->choices[k]; k++)
            if (!strcmp(v, o->choices[k])) {
                *(int *)o->dst = k;
                return 0;
            }
        return -1;
    case PAS2P_OPT_CUSTOM:
        return o->parse(v, o->dst);
    }
    return -1;
}

int pas2p_cli_parse(const pas2p_cli_t *cli, int argc, char **argv, pas2p_args_t *args)
{
    memset(args, 0, sizeof *args);
    args->rest = argc;
    const char *quiet_cmd = cli->quiet ? NULL : cli->cmd;
#define SAY(...)                                                                             \
    do {                                                                                     \
        if (quiet_cmd)                                                                       \
            pas2p_err(quiet_cmd, __VA_ARGS__);                                               \
    } while (0)
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli->dashdash && !strcmp(a, "--")) {
            args->rest = i + 1;
            return 0;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            if (!cli->quiet)
                fputs(cli->usage, stdout);
            return PAS2P_CLI_HELP;
        }
        const pas2p_opt_t *o = a[0] == '-' && a[1] ? find(cli, a) : NULL;
        if (o) {
            const char *v = NULL;
            if (o->kind != PAS2P_OPT_FLAG) {
                if (i + 1 >= argc) {
                    SAY("%s needs %s", a, o->what ? o->what : "a value");
                    return PAS2P_EXIT_USAGE;
                }
                v = argv[++i];
            }
            if (take(o, v)) {
                SAY("%s needs %s, not '%s'", a, o->what ? o->what : "a value", v);
                return PAS2P_EXIT_USAGE;
            }
            if (o->seen)
                *o->seen = 1;
            continue;
        }
        if (a[0] == '-' && a[1]) {
            SAY("unknown option '%s' (see --help%s)", a,
                cli->dashdash ? "; the launched command goes after --" : "");
            return PAS2P_EXIT_USAGE;
        }
        if (args->npos >= cli->npos_max || args->npos >= (int)(sizeof args->pos / sizeof *args->pos)) {
            SAY("unexpected '%s': only %s is taken (see --help)", a,
                cli->pos_what ? cli->pos_what : "no argument");
            return PAS2P_EXIT_USAGE;
        }
        args->pos[args->npos++] = a;
    }
#undef SAY
    return 0;
}
