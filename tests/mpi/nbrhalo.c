/* nbrhalo N: a halo exchange by neighbourhood collectives on a 2-D Cartesian communicator
 * (periodic in x, not in y: the y edges' neighbours are MPI_PROC_NULL), N iterations of an
 * MPI_Neighbor_alltoallv (16 + 8 x neighbour-index doubles to each neighbour), an
 * MPI_Ineighbor_allgather completed by MPI_Wait, computation and an MPI_Allreduce.  Checks
 * what it receives and prints "nbrhalo: ok".  Traced as an alltoallv's per-rank counts,
 * replayed and simulated as that alltoallv (tests/nbrhalo.sh). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "spin_for.h"

enum { NB = 4, MAXC = 64 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int np, n = argc > 1 ? atoi(argv[1]) : 30, bad = 0, dims[2] = {0, 0}, periods[2] = {1, 0};
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Dims_create(np, 2, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    int r, nbr[NB];
    MPI_Comm_rank(cart, &r);
    MPI_Cart_shift(cart, 0, 1, &nbr[0], &nbr[1]); /* MPI's order: -x, +x, -y, +y */
    MPI_Cart_shift(cart, 1, 1, &nbr[2], &nbr[3]);
    static double sbuf[NB * MAXC], rbuf[NB * MAXC];
    int sc[NB], sd[NB], rc[NB], rd[NB];
    for (int k = 0; k < NB; k++) {
        sc[k] = 16 + 8 * k;     /* to neighbour k */
        rc[k] = 16 + 8 * (k ^ 1); /* from neighbour k, which sends as its neighbour k ^ 1 */
        sd[k] = rd[k] = k * MAXC;
    }
    for (int it = 0; it < n; it++) {
        for (int k = 0; k < NB; k++)
            for (int j = 0; j < sc[k]; j++)
                sbuf[k * MAXC + j] = r * 1000 + it;
        MPI_Neighbor_alltoallv(sbuf, sc, sd, MPI_DOUBLE, rbuf, rc, rd, MPI_DOUBLE, cart);
        for (int k = 0; k < NB; k++)
            if (nbr[k] != MPI_PROC_NULL)
                bad |= rbuf[k * MAXC + rc[k] - 1] != nbr[k] * 1000 + it;
        int mine = r + it, theirs[NB];
        MPI_Request q;
        MPI_Ineighbor_allgather(&mine, 1, MPI_INT, theirs, 1, MPI_INT, cart, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        for (int k = 0; k < NB; k++)
            if (nbr[k] != MPI_PROC_NULL)
                bad |= theirs[k] != nbr[k] + it;
        spin_for(5e-4);
        double a = 1, b;
        MPI_Allreduce(&a, &b, 1, MPI_DOUBLE, MPI_SUM, cart);
        bad |= b != np;
    }
    int anybad;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (!r)
        printf(anybad ? "nbrhalo: WRONG\n" : "nbrhalo: ok\n");
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return anybad;
}
