/* Test subject: ranks exchange messages until they are killed (at most ~60 s).
 * Used to check that SIGTERM makes every rank save its buffered events. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, np, v = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    double t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < 60) {
        MPI_Sendrecv_replace(&v, 1, MPI_INT, (rank + 1) % np, 0, (rank + np - 1) % np, 0,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
