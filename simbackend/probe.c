/* bin/pas2p-probe: what `pas2p calibrate` measures (cmd_calibrate.c).
 *
 *   pas2p-probe speed SECONDS [OUT]   this core's speed in flop/s with pas2p's replay kernel
 *                                     (pas2p_kernel.h): the median of 5 slices of
 *                                     SECONDS/5.  No MPI.
 *   pas2p-probe net [OUT]             np = 2: MPI one-way times between ranks 0 and 1 at
 *                                     sizes from 1 byte to 4 MiB (half the round trip of a
 *                                     ping-pong; median of 7 blocks of >= 4 ms each,
 *                                     after 100 ms of round trips not measured):
 *                                     `oneway-BYTES`, and from them `latency` (1 byte) and
 *                                     `bandwidth` (4 MiB / its one-way time).
 * Writes "key = value" lines (speed in flop/s, latency in s, bandwidth in B/s) to OUT, or
 * to stdout without it. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pas2p_kernel.h"

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* the result lines go to `path`, or stdout; 0, or 1 after a message */
static int emit(const char *path, const char *text)
{
    FILE *f = path ? fopen(path, "w") : stdout;
    if (!f || fputs(text, f) < 0 || (path && fclose(f))) {
        fprintf(stderr, "pas2p-probe: cannot write %s\n", path ? path : "stdout");
        return 1;
    }
    return 0;
}

static int speed(double seconds, const char *out)
{
    double r[5];
    for (int i = 0; i < 5; i++)
        r[i] = pas2p_kernel_calibrate(seconds / 5) * PAS2P_KERNEL_FLOPS_PER_BLOCK;
    char text[64];
    snprintf(text, sizeof text, "speed = %.6g\n", median(r, 5));
    return emit(out, text);
}

/* the message sizes of the ping-pong: protocol changes (eager, rendezvous, pipelining)
 * fall between them on Open MPI's shared memory and TCP transports */
static const int sizes[] = {1, 1024, 8192, 65536, 524288, 4 << 20};
enum { NSIZES = sizeof sizes / sizeof sizes[0], BLOCKS = 7, BLOCK_MS = 4 };

/* n ping-pong round trips of `bytes` between ranks 0 and 1 (tag `tag`); this rank's seconds */
static double round_trips(char *buf, int bytes, int n, int rank, int tag)
{
    int peer = 1 - rank;
    double t0 = MPI_Wtime();
    for (int i = 0; i < n; i++) {
        if (rank == 0) {
            MPI_Send(buf, bytes, MPI_CHAR, peer, tag, MPI_COMM_WORLD);
            MPI_Recv(buf, bytes, MPI_CHAR, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, bytes, MPI_CHAR, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_CHAR, peer, tag, MPI_COMM_WORLD);
        }
    }
    return MPI_Wtime() - t0;
}

static int net(const char *out)
{
    int rank, np;
    MPI_Init(NULL, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np != 2) {
        if (rank == 0)
            fprintf(stderr, "pas2p-probe net: needs exactly 2 ranks, not %d\n", np);
        MPI_Finalize();
        return 2;
    }
    char *buf = calloc((size_t)sizes[NSIZES - 1], 1);
    if (!buf) {
        fprintf(stderr, "pas2p-probe net: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* 100 ms of 1-byte round trips first, not measured: a job's two ranks may share a core
     * for a while after they start (--bind-to none), and the 1-byte size, measured first,
     * came out 3x slower than 1 KiB's (calibrate also keeps each size's time at most the
     * next size's) */
    double spent = 0;
    for (int more = 1; more;) {
        spent += round_trips(buf, 1, 1000, rank, 99);
        more = spent < 0.1; /* rank 0's clock decides */
        MPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    double oneway[NSIZES];
    for (int k = 0; k < NSIZES; k++) {
        int n = 1; /* round trips per block: doubled until a block takes >= BLOCK_MS */
        double t[BLOCKS];
        for (int b = 0; b < BLOCKS;) {
            MPI_Barrier(MPI_COMM_WORLD);
            double dt = round_trips(buf, sizes[k], n, rank, k);
            int longer = dt < BLOCK_MS * 1e-3 && n < (1 << 20); /* rank 0's clock decides */
            MPI_Bcast(&longer, 1, MPI_INT, 0, MPI_COMM_WORLD);
            if (longer)
                n *= 2; /* the short blocks were the warm-up */
            else
                t[b++] = dt / (2.0 * n);
        }
        oneway[k] = median(t, BLOCKS);
    }
    free(buf);
    int rc = 0;
    if (rank == 0) {
        char text[1024];
        int len = snprintf(text, sizeof text, "latency = %.6g\nbandwidth = %.6g\n", oneway[0],
                           sizes[NSIZES - 1] / oneway[NSIZES - 1]);
        for (int k = 0; k < NSIZES; k++)
            len += snprintf(text + len, sizeof text - (size_t)len, "oneway-%d = %.6g\n", sizes[k],
                            oneway[k]);
        rc = emit(out, text);
    }
    MPI_Finalize();
    return rc;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && argc <= 4 && !strcmp(argv[1], "speed")) {
        char *end;
        double s = strtod(argv[2], &end);
        if (*end || !(s > 0)) {
            fprintf(stderr, "pas2p-probe speed: SECONDS must be positive, not '%s'\n", argv[2]);
            return 2;
        }
        return speed(s, argc == 4 ? argv[3] : NULL);
    }
    if (argc >= 2 && argc <= 3 && !strcmp(argv[1], "net"))
        return net(argc == 3 ? argv[2] : NULL);
    fprintf(stderr, "usage: pas2p-probe speed SECONDS [OUT] | pas2p-probe net [OUT]   (run by pas2p calibrate)\n");
    return 2;
}
