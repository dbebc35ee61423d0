/* testlater N: SuperLU_DIST's pattern.  Each iteration posts an MPI_Irecv and an MPI_Isend
 * to the other rank, tests each request once, makes an MPI_Allreduce, and only then waits,
 * with MPI_Wait, for each request its test did not find done.  Whether a wait is made is
 * timing: TL_DELAY=1 (environment) makes rank 1 post its send 3 ms late, so that rank 0's
 * test of its receive fails and it waits in every iteration, where the traced run (no delay:
 * both ranks let the messages arrive before testing) waits in none.  The wait comes after
 * another numbered call, so the after-tests rule does not see it; the tracer flags a wait
 * whose every request a test had looked at (PAS2P_EV_TESTED), and that wait is not a
 * numbered call (analysis/completion_waits="tested"). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "spin_for.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, np, n = argc > 1 ? atoi(argv[1]) : 60, waited = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np != 2) {
        if (!r)
            fprintf(stderr, "testlater: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *d = getenv("TL_DELAY");
    int delay = d && atoi(d) > 0, o = 1 - r;
    double sb[16] = {0}, rb[16], x = 1, y;
    for (int it = 0; it < n; it++) {
        MPI_Request q[2];
        int f[2] = {0, 0};
        spin_for(0.001);
        if (delay && r == 1)
            spin_for(0.003);
        MPI_Irecv(rb, 16, MPI_DOUBLE, o, 3, MPI_COMM_WORLD, &q[0]);
        MPI_Isend(sb, 16, MPI_DOUBLE, o, 3, MPI_COMM_WORLD, &q[1]);
        if (!delay)
            spin_for(0.002); /* the peer's message arrives before the tests */
        MPI_Test(&q[0], &f[0], MPI_STATUS_IGNORE);
        MPI_Test(&q[1], &f[1], MPI_STATUS_IGNORE);
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        for (int k = 0; k < 2; k++)
            if (!f[k]) {
                MPI_Wait(&q[k], MPI_STATUS_IGNORE);
                waited++;
            }
    }
    printf("testlater: rank %d waited %d times in %d iterations\n", r, waited, n);
    MPI_Finalize();
    return 0;
}
