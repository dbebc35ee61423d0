/* Test subject: rank 0 sends 100 messages to rank 1, then calls MPI_Abort.
 * The trace of rank 0 must hold every event up to and including MPI_Abort. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, v = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 100; i++) {
        if (rank == 0)
            MPI_Send(&i, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        else if (rank == 1)
            MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (rank == 0)
        MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Barrier(MPI_COMM_WORLD); /* rank 1 waits here until it is killed */
    MPI_Finalize();
    return 0;
}
