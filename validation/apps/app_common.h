/* Helpers shared by the bundled C applications: argument parsing, block decomposition and
 * the result lines every application prints (and the tests and benchmarks read). */
#ifndef PAS2P_APP_COMMON_H
#define PAS2P_APP_COMMON_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* *out = s as a long in [lo, hi]; -1 if s is not such a number */
static inline int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* the two positional arguments every application takes (SIZE ITERS, both optional):
 * returns nonzero if there are more, or one is not a number in its range */
static inline int parse_size_iters(int argc, char **argv, long *size, long lo, long hi,
                                   long *iters, long ilo, long ihi)
{
    if (argc > 3)
        return 1;
    if (argc > 1 && parse_long(argv[1], lo, hi, size))
        return 1;
    return argc > 2 && parse_long(argv[2], ilo, ihi, iters);
}

/* first index of part p when n items are split as evenly as possible over P parts */
static inline int bstart(int p, int n, int P)
{
    return p * (n / P) + (p < n % P ? p : n % P);
}

/* the result lines, printed by rank 0 (time: max over ranks of the timed region) */
static inline void print_result(const char *app, int np, double seconds, int ok)
{
    printf("app = %s\nnp = %d\ntime = %.6f s\nverification = %s\n", app, np, seconds,
           ok ? "OK" : "FAILED");
    fflush(stdout);
}

#endif
