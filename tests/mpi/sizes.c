/* sizes N: a set-up message, then N iterations of a ring exchange, 1 ms of computation and
 * an MPI_Allreduce (tests/predict_stop.sh, mode size).  The set-up message has
 * SETUP_BYTES bytes (environment; 1000 by default): a run with another size departs from
 * its signature only in a phase that is never timed (NWChem's DFT deals its grid out at
 * run time).  LOOP_BYTES (8 by default) sizes the ring's messages: another size there is
 * a real divergence.  LOOP_VARY=1 makes the ring's size vary from iteration to iteration,
 * LOOP_BYTES + 0, 5 or 10 % of it (data-dependent sizes, as a partitioner's).  SETUP_MSGS (1 by default) is how many set-up messages rank 0 sends:
 * another number is a set-up whose calls vary from run to run (work dealt out at run
 * time), which only a signature located by anchors (analyze --locate anchors) follows.
 * JITTER_US (0 by default) adds that many microseconds to every other iteration's
 * computation: a phase whose first timed occurrences disagree.
 * The program checks what it receives. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "spin_for.h"

static int env_int(const char *name, int dflt)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : dflt;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int n = argc > 1 ? atoi(argv[1]) : 200, setup = env_int("SETUP_BYTES", 1000),
        loop = env_int("LOOP_BYTES", 8), msgs = env_int("SETUP_MSGS", 1),
        jitter = env_int("JITTER_US", 0), vary = env_int("LOOP_VARY", 0);
    int most = loop + (vary ? loop / 10 : 0);
    char *buf = calloc((size_t)(setup > most ? setup : most), 1),
         *in = calloc((size_t)(setup > most ? setup : most), 1);
    if (!buf || !in || setup < 1 || loop < 1 || msgs < 0)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int m = 0; m < msgs; m++) {
        if (np > 1 && rank == 0) {
            memset(buf, 7, (size_t)setup);
            MPI_Send(buf, setup, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
        } else if (np > 1 && rank == 1) {
            MPI_Recv(in, setup, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (in[setup - 1] != 7)
                MPI_Abort(MPI_COMM_WORLD, 3);
        }
    }
    double sum = 0;
    for (int it = 0; it < n; it++) {
        int len = loop + (vary ? it % 3 * (loop / 20) : 0);
        memset(buf, it & 0x7f, (size_t)len);
        MPI_Sendrecv(buf, len, MPI_CHAR, (rank + 1) % np, 2, in, len, MPI_CHAR,
                     (rank + np - 1) % np, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (in[len - 1] != (it & 0x7f))
            MPI_Abort(MPI_COMM_WORLD, 4);
        spin_for(1e-3 + (it % 2 ? 1e-6 * jitter : 0));
        double x = 1, y;
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        sum += y;
    }
    if (rank == 0 && sum != (double)n * np)
        MPI_Abort(MPI_COMM_WORLD, 5);
    free(buf);
    free(in);
    MPI_Finalize();
    return 0;
}
