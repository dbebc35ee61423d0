/* commloop N[s]: communicators made and freed inside the main loop (MUMPS re-creates its
 * copies of the user's communicator at every solve).  Each of N iterations makes a copy of
 * MPI_COMM_WORLD (MPI_Comm_dup) and a 1-D periodic Cartesian one over all ranks
 * (MPI_Cart_create), passes a value around the ring on the Cartesian one
 * (MPI_Cart_shift + MPI_Sendrecv), sums on the copy (MPI_Allreduce), computes ~0.5 ms
 * and frees both.  With "s" the copy is also split in two halves (by world rank parity)
 * that reduce on their own and are freed before it: a copy that made a communicator does
 * not give its id back (tracer/FORMAT.md, "Communicator ids").  With "n" the copy is
 * copied again (a library's own copy of the communicator it is given), reduced on and
 * freed before it: both keep their ids.  A collective on WORLD
 * follows the loop.  Checks what it receives and prints "commloop: ok". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "spin_for.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, np, n = argc > 1 ? atoi(argv[1]) : 50, bad = 0;
    int split = argc > 1 && strchr(argv[1], 's') != NULL;
    int nested = argc > 1 && strchr(argv[1], 'n') != NULL;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    for (int it = 0; it < n; it++) {
        MPI_Comm dup, ring;
        int dims[1] = {np}, periods[1] = {1}, left, right;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
        MPI_Cart_shift(ring, 0, 1, &left, &right);
        int x = r * 1000 + it, y = -1;
        MPI_Sendrecv(&x, 1, MPI_INT, right, 3, &y, 1, MPI_INT, left, 3, ring, MPI_STATUS_IGNORE);
        bad |= y != left * 1000 + it;
        spin_for(5e-4);
        int one = 1, all = 0;
        MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, dup);
        bad |= all != np;
        if (nested) {
            MPI_Comm inner;
            int two = 0;
            MPI_Comm_dup(dup, &inner);
            MPI_Allreduce(&one, &two, 1, MPI_INT, MPI_SUM, inner);
            bad |= two != np;
            MPI_Comm_free(&inner);
        }
        if (split) {
            MPI_Comm half;
            int hs = 0, mine = 1;
            MPI_Comm_split(dup, r % 2, r, &half);
            MPI_Allreduce(&mine, &hs, 1, MPI_INT, MPI_SUM, half);
            bad |= hs != (np + (r % 2 ? 0 : 1)) / 2;
            MPI_Comm_free(&half);
        }
        MPI_Comm_free(&ring);
        MPI_Comm_free(&dup);
    }
    int anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (!r)
        printf(anybad ? "commloop: wrong values\n" : "commloop: ok\n");
    MPI_Finalize();
    return anybad;
}
