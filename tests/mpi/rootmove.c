/* rootmove N: N iterations of 2 ms of computation and an MPI_Bcast of 64 doubles from the
 * rank ROOT (environment, default 0), then an MPI_Allreduce.  Which rank broadcasts is
 * where the data sits, which a code's partitioning can change from run to run of the same
 * input (FEniCSx): traced with ROOT=0 and predicted with ROOT=1, the run is the same
 * program, and predict says the moved root as departures instead of diverging.  SCATTER=1
 * (environment): the first iteration's root then also sends the next rank a message of its
 * own, as a code whose data sits elsewhere makes other calls too (DOLFIN's partitioning):
 * predict diverges, and says that a root moved first. */
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
    const char *e = getenv("ROOT");
    int root = e ? atoi(e) % np : 0, scatter = getenv("SCATTER") && atoi(getenv("SCATTER"));
    double b[64] = {0}, x = 1, y;
    for (int it = 0; it < n; it++) {
        spin_for(0.002);
        MPI_Bcast(b, 64, MPI_DOUBLE, root, MPI_COMM_WORLD);
        if (it == 0 && scatter && np > 1) {
            if (r == root)
                MPI_Send(b, 8, MPI_DOUBLE, (root + 1) % np, 5, MPI_COMM_WORLD);
            else if (r == (root + 1) % np)
                MPI_Recv(b, 8, MPI_DOUBLE, root, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (r == 0)
        printf("rootmove: ok\n");
    MPI_Finalize();
    return 0;
}
