/* spawn [ROWS]: a manager (mpirun -np 1) starts 2 workers of the same program with
 * MPI_Comm_spawn, merges the intercommunicator and deals ROWS rows out (gyoto's -P2, R's
 * mpi.spawn.Rslaves).  The workers are a second MPI_COMM_WORLD, ranks 0 and 1 again:
 * pas2p trace must refuse the run, naming MPI_Comm_spawn, not write two worlds' ranks
 * into one set of files (tests/cmake/tracer.cmake, bad_trace_spawn). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent, inter, all;
    MPI_Comm_get_parent(&parent);
    int rows = argc > 1 ? atoi(argv[1]) : 20, nw = 2;
    if (parent == MPI_COMM_NULL) { /* the manager */
        char *wargv[] = {argc > 1 ? argv[1] : "20", NULL};
        MPI_Comm_spawn(argv[0], wargv, nw, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter,
                       MPI_ERRCODES_IGNORE);
        MPI_Intercomm_merge(inter, 0, &all);
        long sum = 0, res;
        MPI_Status st;
        int next = 0, busy = 0;
        for (int w = 1; w <= nw && next < rows; w++, busy++, next++)
            MPI_Send(&next, 1, MPI_INT, w, 1, all);
        while (busy) {
            MPI_Recv(&res, 1, MPI_LONG, MPI_ANY_SOURCE, 2, all, &st);
            sum += res;
            busy--;
            int job = next < rows ? next++ : -1;
            busy += job >= 0;
            MPI_Send(&job, 1, MPI_INT, st.MPI_SOURCE, 1, all);
        }
        for (int w = 1; w <= nw; w++) { /* (a worker never given a row) */
            int stop = -1;
            if (w > rows)
                MPI_Send(&stop, 1, MPI_INT, w, 1, all);
        }
        printf("spawn: %s\n", sum == (long)rows * (rows - 1) / 2 * 2 ? "ok" : "FAILED");
        MPI_Comm_free(&inter);
    } else { /* a worker: twice the row's number back */
        MPI_Intercomm_merge(parent, 1, &all);
        for (;;) {
            int job;
            MPI_Recv(&job, 1, MPI_INT, 0, 1, all, MPI_STATUS_IGNORE);
            if (job < 0)
                break;
            long res = 2L * job;
            MPI_Send(&res, 1, MPI_LONG, 0, 2, all);
        }
        MPI_Comm_free(&parent);
    }
    MPI_Comm_free(&all);
    MPI_Finalize();
    return 0;
}
