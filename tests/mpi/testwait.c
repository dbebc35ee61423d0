/* testwait N [later]: each iteration posts an MPI_Irecv and an MPI_Isend to the other rank,
 * tests each request once, and waits only for what a test did not find done, then an
 * MPI_Allreduce.  Whether a wait is made is timing: TW_DELAY=1 (environment) makes rank 1
 * post its send 3 ms late, so that rank 0's test fails and it waits in every iteration,
 * where the traced run (no delay: both ranks let the messages arrive before testing) waits
 * in none.  Numbered, such a wait moved every ordinal after it and predict diverged at once.
 *   - default: one MPI_Waitall right after the tests (Boost.MPI's wait_all), which the
 *     after-tests rule covers (analysis/completion_waits="after-tests");
 *   - later: the MPI_Allreduce first, then one MPI_Wait per request its test did not find
 *     done (SuperLU_DIST's pattern): another numbered call comes between, so only the
 *     tracer's PAS2P_EV_TESTED flag says so (completion_waits="tested");
 *   - sends: SuperLU_DIST's factorisation loop: a look-ahead receive, then four steps of
 *     (MPI_Isend of a panel, MPI_Test of the look-ahead receive while it is pending,
 *     MPI_Wait for the previous step's send, which no test looked at).  That wait is a call
 *     whatever the tests did; the after-tests rule folded it when a failed test had just
 *     come before it, so how long the receive took to arrive decided how many calls the
 *     rank made (completion_waits="flagged": the flag alone). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "spin_for.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, np, n = argc > 1 ? atoi(argv[1]) : 60, waited = 0;
    int later = argc > 2 && !strcmp(argv[2], "later"), sends = argc > 2 && !strcmp(argv[2], "sends");
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np != 2) {
        if (!r)
            fprintf(stderr, "testwait: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *d = getenv("TW_DELAY");
    int delay = d && atoi(d) > 0, o = 1 - r;
    double sb[16] = {0}, rb[16], x = 1, y;
    for (int it = 0; sends && it < n; it++) {
        MPI_Request la[2], rq[4], sq[4];
        double pin[4], in = 0;
        int got = 0;
        for (int j = 0; j < 4; j++)
            MPI_Irecv(&pin[j], 1, MPI_DOUBLE, o, 10 + j, MPI_COMM_WORLD, &rq[j]);
        MPI_Irecv(&in, 1, MPI_DOUBLE, o, 3, MPI_COMM_WORLD, &la[0]);
        spin_for(0.001);
        if (delay && r == 1)
            spin_for(0.003); /* its look-ahead message comes after rank 0's four steps */
        MPI_Isend(&x, 1, MPI_DOUBLE, o, 3, MPI_COMM_WORLD, &la[1]);
        if (!delay)
            spin_for(0.002); /* the peer's message arrives before the first test */
        for (int j = 0; j < 4; j++) {
            MPI_Isend(&sb[j], 1, MPI_DOUBLE, o, 10 + j, MPI_COMM_WORLD, &sq[j]);
            if (!got)
                MPI_Test(&la[0], &got, MPI_STATUS_IGNORE);
            if (j > 0)
                MPI_Wait(&sq[j - 1], MPI_STATUS_IGNORE);
            spin_for(0.0005);
        }
        MPI_Wait(&sq[3], MPI_STATUS_IGNORE);
        if (!got) { /* (a wait for what the tests did not find done: flagged) */
            MPI_Wait(&la[0], MPI_STATUS_IGNORE);
            waited++;
        }
        MPI_Wait(&la[1], MPI_STATUS_IGNORE);
        MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
        x += in + pin[3];
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        x = y * 1e-3;
    }
    for (int it = 0; !sends && it < n; it++) {
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
        if (!later && (!f[0] || !f[1])) {
            MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
            waited++;
        }
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        for (int k = 0; later && k < 2; k++)
            if (!f[k]) {
                MPI_Wait(&q[k], MPI_STATUS_IGNORE);
                waited++;
            }
    }
    printf("testwait: rank %d waited %d times in %d iterations\n", r, waited, n);
    MPI_Finalize();
    return 0;
}
