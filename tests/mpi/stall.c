/* stall N [MS]: a two-rank exchange loop of N iterations (MS ms of computation on rank 0
 * each, default 20), then a barrier.  With STALL=1 in the environment, after the loop rank
 * 1 blocks in an MPI_Recv that rank 0 satisfies only 30 s later, polling MPI_Iprobe
 * meanwhile: the subject of predict's guaranteed stop while a rank is blocked in a
 * receive (the trace is made without STALL, the prediction with it). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void spin(double s)
{
    double t0 = now();
    while (now() - t0 < s)
        ;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np, n = argc > 1 ? atoi(argv[1]) : 4;
    double ms = argc > 2 ? atof(argv[2]) : 20;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np != 2) {
        if (!rank)
            fprintf(stderr, "stall: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int x = 0, peer = 1 - rank;
    for (int i = 0; i < n; i++) {
        if (rank == 0) {
            spin(ms * 1e-3);
            MPI_Send(&x, 1, MPI_INT, peer, 1, MPI_COMM_WORLD);
            MPI_Recv(&x, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&x, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            x++;
            MPI_Send(&x, 1, MPI_INT, peer, 2, MPI_COMM_WORLD);
        }
    }
    const char *st = getenv("STALL");
    if (st && *st == '1') {
        if (rank == 1) {
            MPI_Recv(&x, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            double t0 = now();
            int flag;
            while (now() - t0 < 30) {
                MPI_Iprobe(1, 98, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
                spin(1e-3);
            }
            MPI_Send(&x, 1, MPI_INT, 1, 99, MPI_COMM_WORLD);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("stall: %d iterations, x = %d\n", n, x);
    MPI_Finalize();
    return 0;
}
