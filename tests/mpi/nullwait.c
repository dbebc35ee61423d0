/* nullwait N: MPI_Wait on MPI_REQUEST_NULL (and an MPI_Waitall of null requests) while an
 * MPI_Irecv is pending whose message the peer sends only later in the iteration (ELPA 2022
 * waits on null requests 1629 times a rank).  Such a wait completes nothing and returns at
 * once; replayed as "wait for the oldest pending request" it waited for that receive while
 * the peer waited in its Sendrecv: replay, simulate and simulate --full-trace deadlocked. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "spin_for.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, np, n = argc > 1 ? atoi(argv[1]) : 40;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np != 2) {
        if (!r)
            fprintf(stderr, "nullwait: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int o = 1 - r;
    static char big[65536], big2[65536];
    char sm[512] = {0}, rm[512];
    double s = 0;
    for (int it = 0; it < n; it++) {
        MPI_Request q, q2, nul[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
        MPI_Irecv(big, sizeof big, MPI_CHAR, o, 12, MPI_COMM_WORLD, &q);
        MPI_Wait(&nul[0], MPI_STATUS_IGNORE);
        MPI_Waitall(2, nul, MPI_STATUSES_IGNORE);
        MPI_Sendrecv(sm, 512, MPI_CHAR, o, 1, rm, 512, MPI_CHAR, o, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        spin_for(0.001);
        MPI_Isend(big2, sizeof big2, MPI_CHAR, o, 12, MPI_COMM_WORLD, &q2);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        MPI_Wait(&q2, MPI_STATUS_IGNORE);
        s += 1;
        MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (!r)
        printf("nullwait: ok\n");
    MPI_Finalize();
    return 0;
}
