/* nbx [N]: the NBX consensus (deal.II's, via its Utilities::MPI::ConsensusAlgorithms): rank 0
 * posts MPI_Ibarrier, then sends; rank 1 receives, then posts its MPI_Ibarrier; both wait.
 * A valid program whose non-blocking collective is not a meeting point at its post: the
 * global logical clock took it for one and reported "the ranks wait for each other".
 * Needs 2 ranks or more (ranks above 1 only take part in the barrier). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int r, x = 42, n = argc > 1 ? atoi(argv[1]) : 100;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    for (int it = 0; it < n; it++) {
        MPI_Request q;
        if (r == 0) {
            MPI_Ibarrier(MPI_COMM_WORLD, &q);
            MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        } else if (r == 1) {
            MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Ibarrier(MPI_COMM_WORLD, &q);
        } else {
            MPI_Ibarrier(MPI_COMM_WORLD, &q);
        }
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    }
    if (!r)
        printf("nbx: %d rounds\n", n);
    MPI_Finalize();
    return 0;
}
