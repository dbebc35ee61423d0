/* swaporder N: each step posts two receives from the other rank, sends it two messages
 * (tags 1 and 2) and waits for all four, computes, and ends with an MPI_Allreduce (np 2).
 * With SWAPORDER=1 in the environment the two sends go out in the other order: the same
 * calls, as timing orders dolfinx's sparse exchange from run to run.  Prints
 * "swaporder: ok". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "spin_for.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, n = argc > 1 ? atoi(argv[1]) : 40, bad = 0;
    const char *sw = getenv("SWAPORDER");
    int swap = sw && *sw == '1';
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    int peer = 1 - r;
    double a[64] = {0}, b[128] = {0}, ra[64], rb[128];
    for (int it = 0; it < n; it++) {
        MPI_Request q[4];
        a[0] = it, b[0] = -it;
        MPI_Irecv(ra, 64, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &q[0]);
        MPI_Irecv(rb, 128, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, &q[1]);
        if (swap) {
            MPI_Isend(b, 128, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, &q[3]);
            MPI_Isend(a, 64, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &q[2]);
        } else {
            MPI_Isend(a, 64, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &q[2]);
            MPI_Isend(b, 128, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, &q[3]);
        }
        MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
        bad |= ra[0] != it || rb[0] != -it;
        spin_for(0.002);
        int s = 0;
        MPI_Allreduce(&bad, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        bad = s;
    }
    if (r == 0)
        printf("swaporder: %s\n", bad ? "FAILED" : "ok");
    MPI_Finalize();
    return bad != 0;
}
