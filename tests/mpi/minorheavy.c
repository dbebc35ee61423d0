/* minorheavy N P_MS Q_MS EVERY: phase P, P_MS of computation then two MPI_Sendrecv around a
 * ring, every iteration (N x); phase Q, the same two MPI_Sendrecv (same peers, tags and
 * sizes) after Q_MS of computation, every EVERY-th iteration.  With 400 0.5 4 10, Q holds
 * ~40 % of the run, 8x P per occurrence, and less in total than P (and 9 % of the calls'
 * occurrences: not merged into P as a rare variant): predict took it for a "minor
 * variant" of P (its calls, lighter in total: noise-split occurrences) and never timed it,
 * estimating it from P's ratio (XMDS2's nlse2d: 7 such phases, 52 % of the run). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "spin_for.h"

static void xchg(int p, int q, double *a, double *b)
{
    MPI_Sendrecv(a, 1, MPI_DOUBLE, p, 1, b, 1, MPI_DOUBLE, q, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(a, 1, MPI_DOUBLE, q, 2, b, 1, MPI_DOUBLE, p, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, n, it = argc > 1 ? atoi(argv[1]) : 400;
    double pms = argc > 2 ? atof(argv[2]) : 0.5, qms = argc > 3 ? atof(argv[3]) : 4;
    int every = argc > 4 && atoi(argv[4]) > 0 ? atoi(argv[4]) : 10;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int p = (r + 1) % n, q = (r + n - 1) % n;
    double a = r, b = 0, s = 0, g;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < it; i++) {
        spin_for(pms * 1e-3);
        xchg(p, q, &a, &b); /* P */
        s += b;
        if (i % every == every / 2) {
            spin_for(qms * 1e-3);
            xchg(p, q, &a, &b); /* Q */
        }
    }
    MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (r == 0)
        printf("minorheavy: ok %g\n", g);
    MPI_Finalize();
    return 0;
}
