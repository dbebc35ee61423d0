/* stall N [MS]: rank 0 computes MS ms (default 20) and sends rank 1 a message, N times;
 * then it sends one more with tag 99, and both meet at a barrier.  Rank 1 receives them in
 * order.  With STALL=K in the environment, rank 1 posts its receive of tag 99 after K loop
 * messages, so it is blocked in MPI_Recv while rank 0 goes through the rest of its loop
 * (the later loop messages wait in rank 1's queue).  The trace is made without STALL, the
 * prediction with it: the subject of predict's guaranteed stop while a rank is blocked in a
 * receive.  Rank 0 prints "stall: done" at the very end: a run stopped early never does. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "spin_for.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np, n = argc > 1 ? atoi(argv[1]) : 100;
    double ms = argc > 2 ? atof(argv[2]) : 20;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np != 2) {
        if (!rank)
            fprintf(stderr, "stall: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *st = getenv("STALL");
    int k = st ? atoi(st) : -1, x = 0;
    if (rank == 0) {
        for (int i = 0; i < n; i++) {
            spin_for(ms * 1e-3);
            MPI_Send(&i, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        }
        MPI_Send(&x, 1, MPI_INT, 1, 99, MPI_COMM_WORLD);
    } else {
        for (int i = 0; i < n; i++) {
            if (i == k) /* blocked until rank 0's loop is over */
                MPI_Recv(&x, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        if (k < 0 || k >= n)
            MPI_Recv(&x, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("stall: done\n");
    MPI_Finalize();
    return 0;
}
