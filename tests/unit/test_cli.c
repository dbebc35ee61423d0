/* Unit tests of the command-line kit (tracer/pas2p_cli.h): every option kind, ranges, the
 * `--` launch, positional limits, help, and the exit-code contract of its failures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "pas2p_cli.h"

typedef struct {
    const char *out, *sig;
    long reps;
    double aet, frac;
    int flag, mode, seen_aet;
} vals_t;

static int parse_even(const char *v, void *dst)
{
    long n = 0;
    if (sscanf(v, "%ld", &n) != 1 || n % 2)
        return -1;
    *(long *)dst = n;
    return 0;
}

static int run(vals_t *x, long *even, pas2p_args_t *a, int argc, char **argv)
{
    static const char *const modes[] = {"kernel", "sleep", NULL};
    const pas2p_opt_t opts[] = {
        {.name = "-o", .alias = "--out", .kind = PAS2P_OPT_STRING, .dst = &x->out, .what = "a directory"},
        {.name = "--reps", .kind = PAS2P_OPT_LONG, .dst = &x->reps, .min = 1, .max = 16, .what = "1-16"},
        {.name = "--aet", .kind = PAS2P_OPT_DOUBLE, .dst = &x->aet, .min = 0, .max = 1e300,
         .min_open = 1, .what = "a time > 0", .seen = &x->seen_aet},
        {.name = "--frac", .kind = PAS2P_OPT_DOUBLE, .dst = &x->frac, .min = 0, .max = 1, .what = "[0, 1]"},
        {.name = "--flag", .kind = PAS2P_OPT_FLAG, .dst = &x->flag},
        {.name = "--compute", .kind = PAS2P_OPT_CHOICE, .dst = &x->mode, .choices = modes, .what = "kernel or sleep"},
        {.name = "--even", .kind = PAS2P_OPT_CUSTOM, .dst = even, .parse = parse_even, .what = "an even number"},
    };
    const pas2p_cli_t cli = {.cmd = "test", .usage = "usage: test\n", .opts = opts,
                             .nopts = sizeof opts / sizeof *opts, .npos_max = 1,
                             .pos_what = "one signature", .dashdash = 1, .quiet = 1};
    return pas2p_cli_parse(&cli, argc, argv, a);
}

#define ARGV(...) (char *[]){"test", __VA_ARGS__, NULL}
#define N(...) ((int)(sizeof((char *[]){"test", __VA_ARGS__}) / sizeof(char *)))

static void every_kind(void **state)
{
    (void)state;
    vals_t x = {0};
    long even = 0;
    pas2p_args_t a;
    char **v = ARGV("sig.xml", "--out", "d", "--reps", "16", "--aet", "2.5", "--frac", "0",
                    "--flag", "--compute", "sleep", "--even", "4", "--", "mpirun", "-np", "2");
    int n = N("sig.xml", "--out", "d", "--reps", "16", "--aet", "2.5", "--frac", "0", "--flag",
              "--compute", "sleep", "--even", "4", "--", "mpirun", "-np", "2");
    assert_int_equal(run(&x, &even, &a, n, v), 0);
    assert_string_equal(x.out, "d");
    assert_int_equal(x.reps, 16);
    assert_true(x.aet == 2.5 && x.frac == 0 && x.flag == 1 && x.mode == 1 && even == 4);
    assert_int_equal(x.seen_aet, 1);
    assert_int_equal(a.npos, 1);
    assert_string_equal(a.pos[0], "sig.xml");
    assert_int_equal(a.rest, 16);
    assert_string_equal(v[a.rest], "mpirun");
}

static void bad_values_are_usage_errors(void **state)
{
    (void)state;
    vals_t x = {0};
    long even = 0;
    pas2p_args_t a;
    assert_int_equal(run(&x, &even, &a, N("--reps", "0"), ARGV("--reps", "0")), PAS2P_EXIT_USAGE);
    assert_int_equal(run(&x, &even, &a, N("--reps", "17"), ARGV("--reps", "17")), PAS2P_EXIT_USAGE);
    assert_int_equal(run(&x, &even, &a, N("--reps", "3x"), ARGV("--reps", "3x")), PAS2P_EXIT_USAGE);
    assert_int_equal(run(&x, &even, &a, N("--aet", "0"), ARGV("--aet", "0")), PAS2P_EXIT_USAGE);
    assert_int_equal(run(&x, &even, &a, N("--aet", "nan"), ARGV("--aet", "nan")), PAS2P_EXIT_USAGE);
    assert_int_equal(run(&x, &even, &a, N("--frac", "1.01"), ARGV("--frac", "1.01")), PAS2P_EXIT_USAGE);
    assert_int_equal(run(&x, &even, &a, N("--compute", "fast"), ARGV("--compute", "fast")), PAS2P_EXIT_USAGE);
    assert_int_equal(run(&x, &even, &a, N("--even", "3"), ARGV("--even", "3")), PAS2P_EXIT_USAGE);
    assert_int_equal(run(&x, &even, &a, N("--out"), ARGV("--out")), PAS2P_EXIT_USAGE);
    assert_int_equal(run(&x, &even, &a, N("--out", ""), ARGV("--out", "")), PAS2P_EXIT_USAGE);
    assert_int_equal(run(&x, &even, &a, N("--nope"), ARGV("--nope")), PAS2P_EXIT_USAGE);
    assert_int_equal(run(&x, &even, &a, N("a", "b"), ARGV("a", "b")), PAS2P_EXIT_USAGE);
    assert_int_equal(x.seen_aet, 0); /* a refused value is not "seen" */
    assert_int_equal(x.reps, 0);     /* nor stored */
}

static void help_and_empty_launch(void **state)
{
    (void)state;
    vals_t x = {0};
    long even = 0;
    pas2p_args_t a;
    assert_int_equal(run(&x, &even, &a, N("--reps", "2", "--help"), ARGV("--reps", "2", "--help")),
                     PAS2P_CLI_HELP);
    assert_int_equal(run(&x, &even, &a, N("-h"), ARGV("-h")), PAS2P_CLI_HELP);
    /* after `--`, nothing is an option: a launch's own -h goes to it */
    assert_int_equal(run(&x, &even, &a, N("--", "./app", "-h"), ARGV("--", "./app", "-h")), 0);
    assert_int_equal(a.rest, 2);
    /* `--` at the end: no launch (rest == argc) */
    assert_int_equal(run(&x, &even, &a, N("s.xml", "--"), ARGV("s.xml", "--")), 0);
    assert_int_equal(a.rest, 3);
    /* a lone "-" is a positional argument (stdin, by convention) */
    assert_int_equal(run(&x, &even, &a, N("-"), ARGV("-")), 0);
    assert_int_equal(a.npos, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_kind),
        cmocka_unit_test(bad_values_are_usage_errors),
        cmocka_unit_test(help_and_empty_launch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
