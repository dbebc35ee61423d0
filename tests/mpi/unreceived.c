/* Ray's end (tests/unreceived.sh): a ring of Isend + polled MPI_Iprobe(MPI_ANY_SOURCE) +
 * Recv + Wait for ITER iterations, then rank 0 sends a message to itself that nobody
 * receives and that it never completes, and every rank finalizes.  An MPI program may leave
 * such a message in flight; the analysis must still succeed (the last occurrence holds it)
 * and replay and simulate must not wait for its receive.
 *   unreceived ITER */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, np, buf[7] = {0}, in[7];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int iter = argc > 1 ? atoi(argv[1]) : 200;
    volatile double x = 0;
    for (int it = 0; it < iter; it++) {
        MPI_Request r;
        MPI_Status st;
        int flag = 0;
        MPI_Isend(buf, 7, MPI_INT, (rank + 1) % np, 1, MPI_COMM_WORLD, &r);
        for (int k = 0; k < 20000; k++)
            x += k * 1e-9;
        while (!flag)
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        MPI_Recv(in, 7, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Request r;
        MPI_Isend(buf, 7, MPI_INT, 0, 5, MPI_COMM_WORLD, &r); /* never received */
    }
    MPI_Finalize();
    return 0;
}
