/* The command-line kit every `pas2p` command file uses: one option table per command, one
 * error helper, and the exit-code contract (docs/CLI.md; tracer/README.md).  A command file parses with
 * pas2p_cli_parse(), calls its module's engine with a struct of options, and prints.
 *
 * Exit codes, the same for every command:
 *   0  done
 *   1  the work failed: the run, replay, simulation or analysis went wrong on input that
 *      was readable (a diverged run, a launch that failed, an inconsistent trace, an
 *      output that could not be written: disk full)
 *   2  the command line or an input is wrong: an unknown option, a bad value, a file that is
 *      missing, unreadable, malformed or of the wrong kind
 *   N  `trace` and `predict` pass a launched application's own non-zero status through
 */
#ifndef PAS2P_CLI_H
#define PAS2P_CLI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 3: done from part of the input (`analyze` of a trace with a rank file cut short: the
 * signature is written, and of the part that was read), a warning a script must see:
 * rsync's "partial transfer" (23, 24) in spirit */
enum { PAS2P_EXIT_OK = 0, PAS2P_EXIT_FAIL = 1, PAS2P_EXIT_USAGE = 2, PAS2P_EXIT_PARTIAL = 3 };

/* "pas2p CMD: MESSAGE\n" on stderr: the one line a failure prints.  cmd NULL: "pas2p: ". */
void pas2p_err(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

typedef enum {
    PAS2P_OPT_FLAG,     /* no value: *(int *)dst = 1 */
    PAS2P_OPT_STRING,   /* *(const char **)dst = the value */
    PAS2P_OPT_LONG,     /* *(long *)dst, integer in [min, max] */
    PAS2P_OPT_DOUBLE,   /* *(double *)dst, in [min, max]; min_open: > min */
    PAS2P_OPT_CHOICE,   /* *(int *)dst = index of the value in choices (NULL-terminated) */
    PAS2P_OPT_CUSTOM,   /* parse(value, dst): 0, or -1 for "needs WHAT" */
} pas2p_opt_kind_t;

typedef struct {
    const char *name;            /* "--aet" */
    const char *alias;           /* "-o", or NULL */
    pas2p_opt_kind_t kind;
    void *dst;
    double min, max;             /* LONG, DOUBLE: the accepted range (inclusive) */
    int min_open;                /* DOUBLE: the value must be > min */
    const char *what;            /* the error says "NAME needs WHAT" */
    const char *const *choices;  /* CHOICE */
    int (*parse)(const char *value, void *dst); /* CUSTOM */
    int *seen;                   /* optional: set to 1 when the option is given */
} pas2p_opt_t;

typedef struct {
    const char *cmd;             /* "predict": errors are "pas2p predict: ..." */
    const char *usage;           /* printed on -h/--help (stdout) */
    const pas2p_opt_t *opts;
    size_t nopts;
    int npos_max;                /* positional arguments accepted (0, 1, ...) */
    const char *pos_what;        /* "a signature": the error when too many are given */
    int dashdash;                /* 1: stop at `--`, the rest is a launch */
    int quiet;                   /* 1: parse, but say nothing (analyze's MPI processes > 0) */
} pas2p_cli_t;

/* The parse's outcome: pos[0..npos) the positional arguments; rest: index of the first
 * argument after `--` (argc when there is none or it is empty). */
typedef struct {
    const char *pos[8];
    int npos;
    int rest;
} pas2p_args_t;

/* Parses argv[1..argc).  Returns 0 (parsed), PAS2P_CLI_HELP (-h/--help: usage printed;
 * the command exits 0), or PAS2P_EXIT_USAGE after one line naming the option and what it
 * needs.  Callers: `if ((rc = pas2p_cli_parse(...))) return rc == PAS2P_CLI_HELP ? 0 : rc;` */
#define PAS2P_CLI_HELP (-1)
int pas2p_cli_parse(const pas2p_cli_t *cli, int argc, char **argv, pas2p_args_t *args);

#ifdef __cplusplus
}
#endif
#endif
