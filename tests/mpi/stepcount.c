/* stepcount N FIRST K1 K2 [X]: N time steps, each of K inner solver iterations (a halo
 * exchange with the other rank, 0.2 ms of computation, an MPI_Allreduce of the residual): K1
 * in the first FIRST steps, K2 after (icoFoam's pressure solver, whose iteration count
 * changes over the run), with X times the computation after them (default 1).  Each count
 * is a phase of its own; the later one, first seen after predict's rare point, makes the
 * same calls as the first, with the same computation per call unless X says otherwise
 * (tests/cmake/signature.cmake, predict_familiar_unseen). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "spin_for.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, np;
    int n = argc > 1 ? atoi(argv[1]) : 300, first = argc > 2 ? atoi(argv[2]) : 60;
    int k1 = argc > 3 ? atoi(argv[3]) : 2, k2 = argc > 4 ? atoi(argv[4]) : 3;
    double x = argc > 5 ? atof(argv[5]) : 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    double halo[64] = {0}, in[64], res = 1, sum;
    int peer = (r + 1) % np;
    for (int s = 0; s < n; s++) {
        int k = s < first ? k1 : k2;
        for (int i = 0; i < k; i++) {
            MPI_Sendrecv(halo, 64, MPI_DOUBLE, peer, 1, in, 64, MPI_DOUBLE, peer, 1,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            spin_for(s < first ? 0.0002 : 0.0002 * x);
            MPI_Allreduce(&res, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        }
        spin_for(s < first ? 0.0003 : 0.0003 * x); /* the step's own work */
        MPI_Bcast(&res, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD); /* its time step, from rank 0 */
    }
    if (r == 0)
        printf("stepcount: ok\n");
    MPI_Finalize();
    return 0;
}
