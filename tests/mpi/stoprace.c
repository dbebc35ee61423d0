/* stoprace: no collective, so the whole run is one phase of weight 1 (yorick's mpy),
 * located by anchors (wildcard receives).  Rank 1 sends 100 messages (MPI_Isend +
 * MPI_Waitsome) and finalizes; rank 0 receives them, then makes 2 + EXTRA (environment)
 * messages to itself and finalizes: mpy makes a few more or fewer calls from run to run.
 * Predicted with EXTRA above the trace's, rank 0's occurrence closes at the traced count
 * and it ends the job while rank 1 has measured to its MPI_Finalize: both ranks' times are
 * final (tests/cmake/signature.cmake, predict_whole_run_more_calls).  Prints "stoprace: ok". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "spin_for.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    const char *ex = getenv("EXTRA");
    int extra = ex ? atoi(ex) : 0;
    double x = 1, y = 0, sum = 0;
    for (int i = 0; i < 100; i++) {
        if (r == 1) {
            MPI_Request q;
            int n, idx[1];
            spin_for(0.002);
            MPI_Isend(&x, 1, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, &q);
            MPI_Waitsome(1, &q, &n, idx, MPI_STATUSES_IGNORE);
        } else if (r == 0) {
            MPI_Recv(&y, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            sum += y;
        }
    }
    if (r == 0) {
        spin_for(0.05);
        for (int k = 0; k < 2 + extra; k++) {
            MPI_Request q;
            MPI_Isend(&x, 1, MPI_DOUBLE, 0, 9, MPI_COMM_WORLD, &q);
            MPI_Recv(&y, 1, MPI_DOUBLE, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Wait(&q, MPI_STATUS_IGNORE);
            spin_for(0.005);
        }
        printf("stoprace: %s\n", sum == 100 ? "ok" : "FAILED");
    }
    MPI_Finalize();
    return 0;
}
