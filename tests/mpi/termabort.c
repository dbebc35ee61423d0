/* termabort [STEPS]: HyPhy's way of ending: a SIGTERM handler that calls MPI_Abort.  The
 * ranks run STEPS steps of 2 ms of computation and a point-to-point ring exchange (no
 * collective: pas2p predict's guaranteed stop ends the run, and mpirun sends the other
 * ranks SIGTERM, which this handler answers with MPI_Abort(MPI_COMM_WORLD, 5)).  Run
 * plainly it ends normally and prints "termabort: ok". */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include "spin_for.h"

static void on_term(int sig)
{
    (void)sig;
    MPI_Abort(MPI_COMM_WORLD, 5);
}

int main(int argc, char **argv)
{
    signal(SIGTERM, on_term);
    MPI_Init(&argc, &argv);
    int steps = argc > 1 ? atoi(argv[1]) : 300, r, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    double out = r, in = 0;
    for (int k = 0; k < steps; k++) {
        spin_for(2e-3);
        MPI_Sendrecv(&out, 1, MPI_DOUBLE, (r + 1) % np, 1, &in, 1, MPI_DOUBLE, (r + np - 1) % np, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    if (r == 0)
        printf("termabort: ok\n");
    return 0;
}
