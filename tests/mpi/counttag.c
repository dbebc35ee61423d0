/* counttag N: N steps of a ring exchange, 2 ms of computation and a sum reduced the way
 * mpi4py reduces a Python object (comm.allreduce(obj)): on a duplicate of the world
 * communicator, every other rank sends rank 0 its pickle's size and then the pickle, rank
 * 0 combines them and broadcasts the size and the result, and every such reduction's
 * messages are tagged with a counter, one more per call.  Checks the sums and prints
 * "counttag: ok".  Without counting tags no two steps make the same calls (tests/counttag.sh). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "spin_for.h"

/* sum of every rank's v, as mpi4py's pickle-based allreduce moves it */
static double pickled_allreduce(MPI_Comm c, double v, int tag)
{
    int r, np, len = (int)sizeof v;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &np);
    double sum = v;
    if (r) {
        MPI_Send(&len, 1, MPI_INT, 0, tag, c);
        MPI_Send(&v, len, MPI_BYTE, 0, tag, c);
    } else {
        for (int p = 1; p < np; p++) {
            double x;
            MPI_Recv(&len, 1, MPI_INT, p, tag, c, MPI_STATUS_IGNORE);
            MPI_Recv(&x, len, MPI_BYTE, p, tag, c, MPI_STATUS_IGNORE);
            sum += x;
        }
    }
    MPI_Bcast(&len, 1, MPI_INT, 0, c);
    MPI_Bcast(&sum, len, MPI_BYTE, 0, c);
    return sum;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, np, n = argc > 1 ? atoi(argv[1]) : 100, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    char a[4000] = {0}, b[4000];
    for (int it = 0; it < n; it++) {
        MPI_Request q;
        MPI_Irecv(b, sizeof b, MPI_BYTE, (r + np - 1) % np, 1, MPI_COMM_WORLD, &q);
        MPI_Send(a, sizeof a, MPI_BYTE, (r + 1) % np, 1, MPI_COMM_WORLD);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        spin_for(2e-3);
        double s = pickled_allreduce(dup, (double)(r + it), it);
        bad |= s != (double)np * it + (double)np * (np - 1) / 2;
    }
    MPI_Comm_free(&dup);
    if (bad)
        fprintf(stderr, "counttag: rank %d: wrong sum\n", r);
    else if (!r)
        printf("counttag: ok\n");
    MPI_Finalize();
    return bad;
}
