/* endheavy N END_MS: N iterations of 5 ms of computation and an MPI_Allreduce, then END_MS
 * of computation before MPI_Finalize: a code whose last stretch, once, at the end (tree-
 * puzzle's puzzling step: 70 % of its run), may hold most of the run.  predict estimates
 * such an end phase from the other phases' ratio while it holds under half a rank's time
 * (the run stops early), and times it, running to the end, when it holds more. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "spin_for.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, n = argc > 1 ? atoi(argv[1]) : 40;
    double end_ms = argc > 2 ? atof(argv[2]) : 300, x = 1, y = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    for (int i = 0; i < n; i++) {
        spin_for(0.005);
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    spin_for(end_ms * 1e-3);
    if (r == 0)
        printf("endheavy: ok\n");
    MPI_Finalize();
    return 0;
}
