/* poll N: rank 0 computes 2 ms and sends; rank 1 waits for it by polling MPI_Test (0.1 ms
 * apart), computes 1 ms and answers; N times.  How many polls find nothing differs from
 * run to run, so a prediction of it must not count them (global signatures number calls
 * other than failed polls). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "spin_for.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, np, n = argc > 1 ? atoi(argv[1]) : 50, x = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np != 2) {
        if (!r)
            fprintf(stderr, "poll: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 0; i < n; i++) {
        if (r == 0) {
            spin_for(2e-3);
            MPI_Send(&i, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(&x, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Request q;
            int f = 0;
            MPI_Irecv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &q);
            while (!f) {
                MPI_Test(&q, &f, MPI_STATUS_IGNORE);
                spin_for(1e-4);
            }
            spin_for(1e-3);
            MPI_Send(&x, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (!r)
        printf("poll: done\n");
    MPI_Finalize();
    return 0;
}
