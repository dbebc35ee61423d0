/* bcastorder N: murasaki-mpi's pattern, np 2.  Two all-rank communicators (the world and a
 * split of it); rank 0 is the root of small broadcasts on both and makes them in one order,
 * rank 1 in the other (eager broadcasts allow it), then an MPI_Allreduce.  Anything that
 * synchronises the ranks after each broadcast deadlocks it (predict's stop agreement did).
 * Prints "bcastorder: ok". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "spin_for.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, n = argc > 1 ? atoi(argv[1]) : 40, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm sp;
    MPI_Comm_split(MPI_COMM_WORLD, 0, r, &sp);
    for (int it = 0; it < n; it++) {
        int a = r == 0 ? it : -1, b = r == 0 ? 2 * it : -1, s = 0;
        spin_for(0.002);
        if (r == 0) {
            MPI_Bcast(&a, 1, MPI_INT, 0, sp);
            MPI_Bcast(&b, 1, MPI_INT, 0, MPI_COMM_WORLD);
        } else {
            MPI_Bcast(&b, 1, MPI_INT, 0, MPI_COMM_WORLD);
            MPI_Bcast(&a, 1, MPI_INT, 0, sp);
        }
        bad |= a != it || b != 2 * it;
        MPI_Allreduce(&bad, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        bad = s;
    }
    MPI_Comm_free(&sp);
    if (r == 0)
        printf("bcastorder: %s\n", bad ? "FAILED" : "ok");
    MPI_Finalize();
    return bad != 0;
}
