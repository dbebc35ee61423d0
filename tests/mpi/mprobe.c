/* mprobe N: matched probes.  Each of N iterations, rank 0 sends two messages (tags 5 and 6)
 * to rank 1, which takes the first with MPI_Mprobe + MPI_Mrecv and the second with an
 * MPI_Improbe(MPI_ANY_SOURCE) polling loop + MPI_Imrecv + MPI_Wait; then an MPI_Allreduce.
 * The tracer records them as the probe and receive calls they stand for, so every message
 * is received in the trace (tests/cmake/tracer.cmake: mprobe).  Checked. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, n = argc > 1 ? atoi(argv[1]) : 20;
    long bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int it = 0; it < n; it++) {
        int a = it, b = -it, r = -1;
        if (rank == 0) {
            MPI_Send(&a, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
            MPI_Send(&b, 1, MPI_INT, 1, 6, MPI_COMM_WORLD);
        } else if (rank == 1) {
            MPI_Message m;
            MPI_Status st;
            MPI_Mprobe(0, 5, MPI_COMM_WORLD, &m, &st);
            MPI_Mrecv(&r, 1, MPI_INT, &m, MPI_STATUS_IGNORE);
            bad += r != it;
            int flag = 0;
            while (!flag)
                MPI_Improbe(MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &flag, &m, &st);
            MPI_Request q;
            MPI_Imrecv(&r, 1, MPI_INT, &m, &q);
            MPI_Wait(&q, &st);
            bad += r != -it || st.MPI_SOURCE != 0;
        }
        double x = 1, y;
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 1)
        printf("mprobe: %s\n", bad ? "FAILED" : "ok");
    MPI_Finalize();
    return bad != 0;
}
