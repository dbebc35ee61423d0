/* intercomm N: the ranks split into even and odd halves joined by MPI_Intercomm_create;
 * N iterations of a ping-pong over the intercommunicator (a point-to-point peer there is a
 * rank of the other half) and an MPI_Allreduce on a copy of MPI_COMM_WORLD made by
 * MPI_Comm_idup (non-blocking: completed by an MPI_Wait); then a barrier, a
 * broadcast from the even half's first rank (MPI_ROOT) and an allreduce on the
 * intercommunicator, and an allreduce on its MPI_Intercomm_merge.  Needs an even np;
 * checks what it receives and prints "intercomm: ok".  Before intercommunicators were
 * wrapped, each half named the intercommunicator by its own remote group: two ids, and
 * every message was "sent and never received" (tests/cmake/tracer.cmake: intercomm). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "spin_for.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, np, n = argc > 1 ? atoi(argv[1]) : 50;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np % 2) {
        if (!r)
            fprintf(stderr, "intercomm: needs an even number of ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int color = r % 2, lr, bad = 0;
    MPI_Comm local, inter, merged, dup;
    MPI_Request q;
    MPI_Comm_idup(MPI_COMM_WORLD, &dup, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Comm_split(MPI_COMM_WORLD, color, r, &local);
    MPI_Comm_rank(local, &lr);
    /* the leaders: world ranks 0 (even half) and 1 (odd half) */
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color ? 0 : 1, 7, &inter);
    for (int it = 0; it < n; it++) {
        double x = r + it, y = -1;
        if (color == 0) { /* the partner: the other half's rank of the same local rank */
            MPI_Send(&x, 1, MPI_DOUBLE, lr, 1, inter);
            MPI_Recv(&y, 1, MPI_DOUBLE, lr, 2, inter, MPI_STATUS_IGNORE);
            bad |= y != r + 1 + it;
        } else {
            MPI_Recv(&y, 1, MPI_DOUBLE, lr, 1, inter, MPI_STATUS_IGNORE);
            bad |= y != r - 1 + it;
            MPI_Send(&x, 1, MPI_DOUBLE, lr, 2, inter);
        }
        spin_for(2e-4);
        double one = 1, all;
        MPI_Allreduce(&one, &all, 1, MPI_DOUBLE, MPI_SUM, dup);
        bad |= all != np;
    }
    MPI_Barrier(inter);
    double z = color ? 0 : 42;
    if (color == 0)
        MPI_Bcast(&z, 1, MPI_DOUBLE, lr == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
    else
        MPI_Bcast(&z, 1, MPI_DOUBLE, 0, inter);
    bad |= z != 42;
    double one = 1, other; /* an intercommunicator's allreduce: the other half's sum */
    MPI_Allreduce(&one, &other, 1, MPI_DOUBLE, MPI_SUM, inter);
    bad |= other != np / 2;
    MPI_Intercomm_merge(inter, color, &merged);
    double all;
    MPI_Allreduce(&one, &all, 1, MPI_DOUBLE, MPI_SUM, merged);
    bad |= all != np;
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    MPI_Comm_free(&dup);
    int anybad;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (!r)
        printf(anybad ? "intercomm: WRONG\n" : "intercomm: ok\n");
    MPI_Finalize();
    return anybad;
}
