/* bin/pas2p-probe: what `pas2p calibrate` measures (cmd_calibrate.c).
 *
 *   pas2p-probe speed SECONDS [OUT]   this core's speed in flop/s with pas2p's replay kernel
 *                                     (pas2p_kernel.h): the median of 5 slices of
 *                                     SECONDS/5.  No MPI.
 *   pas2p-probe net [OUT]             np = 2: MPI one-way latency (half the median round
 *                                     trip of 1-byte messages, 10 blocks of 200) and
 *                                     bandwidth (4 MiB messages one way, acknowledged;
 *                                     median of 5 blocks of 4) between ranks 0 and 1.
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
    int peer = 1 - rank;
    enum { LAT_BLOCKS = 10, LAT_ITERS = 200, BW_BLOCKS = 5, BW_MSGS = 4, BW_BYTES = 4 << 20 };
    char small = 0;
    double lat[LAT_BLOCKS], bw[BW_BLOCKS];
    for (int b = -1; b < LAT_BLOCKS; b++) { /* block -1: warm-up */
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < LAT_ITERS; i++) {
            if (rank == 0) {
                MPI_Send(&small, 1, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
                MPI_Recv(&small, 1, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(&small, 1, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(&small, 1, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
            }
        }
        if (b >= 0)
            lat[b] = (MPI_Wtime() - t0) / (2.0 * LAT_ITERS);
    }
    char *buf = calloc(BW_BYTES, 1);
    if (!buf) {
        fprintf(stderr, "pas2p-probe net: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int b = -1; b < BW_BLOCKS; b++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < BW_MSGS; i++) {
            if (rank == 0)
                MPI_Send(buf, BW_BYTES, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
            else
                MPI_Recv(buf, BW_BYTES, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        if (rank == 0) /* the last message has arrived when the acknowledgement does */
            MPI_Recv(&small, 1, MPI_CHAR, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else
            MPI_Send(&small, 1, MPI_CHAR, peer, 2, MPI_COMM_WORLD);
        if (b >= 0)
            bw[b] = (double)BW_MSGS * BW_BYTES / (MPI_Wtime() - t0);
    }
    free(buf);
    int rc = 0;
    if (rank == 0) {
        char text[128];
        double l = median(lat, LAT_BLOCKS), b = median(bw, BW_BLOCKS);
        snprintf(text, sizeof text, "latency = %.6g\nbandwidth = %.6g\n", l, b);
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
