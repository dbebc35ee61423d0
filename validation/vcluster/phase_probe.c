/* phase_probe: times N repetitions of a fixed amount of CPU work (a "phase") and prints
 * their median, mean, 10th and 90th percentiles in milliseconds, one line:
 *   phase_probe --calibrate MS [BYTES]    prints the count that takes MS ms on this CPU
 *   phase_probe COUNT N [GAP_MS] [BYTES]  N phases of COUNT steps, GAP_MS of sleep
 *                                         between them (default 0: back to back)
 * BYTES 0 (the default): a step is a dependent multiply-add on a register (pure
 * computation, what the replay's compute kernel is); BYTES > 0: a step updates the next
 * double of an array of BYTES, cyclically (a streaming code's computation, whose speed is
 * its cache's: the phase finds the array where the previous one left it).
 * Used by cfs_period.sh to see what a cgroup CPU quota does to a few-millisecond phase. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static volatile double sink;

static double *arr; /* the working set (BYTES > 0) */
static long narr, pos;

static void work(long n)
{
    if (!narr) {
        double x = 1.0;
        for (long i = 0; i < n; i++)
            x = x * 1.0000001 + 1e-9;
        sink = x;
        return;
    }
    while (n > 0) { /* n updates, continuing where the last phase stopped */
        long m = narr - pos < n ? narr - pos : n;
        double *a = arr + pos;
        for (long i = 0; i < m; i++)
            a[i] = a[i] * 0.999999 + 1e-9;
        pos = (pos + m) % narr;
        n -= m;
    }
    sink = arr[pos];
}

/* the working set: BYTES (argv[i] when present) of doubles, touched once */
static int setup(int argc, char **argv, int i)
{
    long bytes = argc > i ? atol(argv[i]) : 0;
    if (bytes < 0 || (bytes > 0 && bytes < 64)) {
        fprintf(stderr, "phase_probe: BYTES must be 0 or at least 64\n");
        return -1;
    }
    narr = bytes / (long)sizeof(double);
    if (narr && !(arr = malloc(sizeof *arr * (size_t)narr))) {
        fprintf(stderr, "phase_probe: cannot allocate %ld bytes\n", bytes);
        return -1;
    }
    for (long k = 0; k < narr; k++)
        arr[k] = 1.0;
    return 0;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if ((argc == 3 || argc == 4) && !strcmp(argv[1], "--calibrate")) {
        double ms = atof(argv[2]);
        if (setup(argc, argv, 3))
            return 2;
        long n = 1000000;
        for (;;) { /* the fastest of 5 runs, growing n until a run takes >= 50 ms */
            double best = 1e9;
            for (int k = 0; k < 5; k++) {
                double t = now();
                work(n);
                t = now() - t;
                if (t < best)
                    best = t;
            }
            if (best >= 0.05) {
                printf("%ld\n", (long)((double)n * ms * 1e-3 / best));
                return 0;
            }
            n *= 2;
        }
    }
    if (argc < 3 || argc > 5) {
        fprintf(stderr, "usage: phase_probe --calibrate MS [BYTES] | phase_probe COUNT N [GAP_MS] [BYTES]\n");
        return 2;
    }
    if (setup(argc, argv, 4))
        return 2;
    long count = atol(argv[1]);
    int n = atoi(argv[2]);
    double gap = argc > 3 ? atof(argv[3]) * 1e-3 : 0;
    if (count <= 0 || n <= 0) {
        fprintf(stderr, "phase_probe: COUNT and N must be positive\n");
        return 2;
    }
    double *t = malloc(sizeof *t * (size_t)n), sum = 0;
    if (!t)
        return 1;
    for (int i = 0; i < n; i++) {
        double a = now();
        work(count);
        t[i] = (now() - a) * 1e3;
        sum += t[i];
        if (gap > 0) {
            struct timespec g = {(time_t)gap, (long)((gap - (double)(time_t)gap) * 1e9)};
            nanosleep(&g, NULL);
        }
    }
    qsort(t, (size_t)n, sizeof *t, cmp);
    printf("median_ms=%.4f mean_ms=%.4f p10_ms=%.4f p90_ms=%.4f\n", t[n / 2], sum / n, t[n / 10],
           t[(n * 9) / 10]);
    free(t);
    free(arr);
    return 0;
}
