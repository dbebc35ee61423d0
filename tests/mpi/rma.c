/* rma N: N iterations of a ring exchange done with one-sided communication (MPI_Put into
 * the right neighbour's window between two MPI_Win_fence), then an MPI_Allreduce of the
 * values received, checked.  The tracer does not trace one-sided calls; it counts them
 * (tests/cmake/tracer.cmake: rma_counted): 3 per iteration and rank here. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np, n = argc > 1 ? atoi(argv[1]) : 50;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int slot = -1;
    MPI_Win win;
    MPI_Win_create(&slot, sizeof slot, sizeof slot, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    long sum = 0;
    for (int it = 0; it < n; it++) {
        int v = it * np + rank;
        MPI_Win_fence(0, win);
        MPI_Put(&v, 1, MPI_INT, (rank + 1) % np, 0, 1, MPI_INT, win);
        MPI_Win_fence(0, win);
        if (slot != it * np + (rank + np - 1) % np) {
            fprintf(stderr, "rma: rank %d iteration %d got %d\n", rank, it, slot);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        sum += slot;
    }
    long all;
    MPI_Allreduce(&sum, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
