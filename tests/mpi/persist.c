/* persist N: a ring halo exchange over persistent requests (MPI_Send_init/MPI_Recv_init
 * once, then N iterations of MPI_Startall, computation, MPI_Waitall and an MPI_Allreduce),
 * and one MPI_Start/MPI_Wait pair per iteration besides.  Checks every message and prints
 * "persist: ok".  A signature names the requests each Start starts (`starts`), so that
 * simulate and replay send and receive what it sent and received (tests/persistent.sh).
 * "persist Nr" (e.g. 300r) makes and frees the four ring requests every iteration, as PETSc's
 * scatters do: thousands of inits, each started once. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "spin_for.h"

enum { N = 512 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, np, n = argc > 1 ? atoi(argv[1]) : 50, bad = 0;
    int renew = argc > 1 && argv[1][0] && argv[1][strlen(argv[1]) - 1] == 'r';
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    static double out[2][N], in[2][N], one_out, one_in;
    MPI_Request q[4], single[2];
    int right = (r + 1) % np, left = (r + np - 1) % np;
    MPI_Recv_init(&one_in, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &single[0]);
    MPI_Send_init(&one_out, 1, MPI_DOUBLE, right, 3, MPI_COMM_WORLD, &single[1]);
    for (int it = 0; it < n; it++) {
        if (it == 0 || renew) {
            if (it)
                for (int i = 0; i < 4; i++)
                    MPI_Request_free(&q[i]);
            MPI_Send_init(out[0], N, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &q[0]);
            MPI_Send_init(out[1], N, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &q[1]);
            MPI_Recv_init(in[0], N, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &q[2]);
            MPI_Recv_init(in[1], N, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &q[3]);
        }
        out[0][N - 1] = r + it;
        out[1][0] = -(r + it);
        MPI_Startall(4, q);
        spin_for(5e-4);
        MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
        bad |= in[0][N - 1] != left + it || in[1][0] != -(right + it);
        one_out = r;
        MPI_Start(&single[0]);
        MPI_Start(&single[1]);
        MPI_Wait(&single[1], MPI_STATUS_IGNORE);
        MPI_Wait(&single[0], MPI_STATUS_IGNORE);
        bad |= one_in != left;
        double a = 1, b;
        MPI_Allreduce(&a, &b, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        bad |= b != np;
    }
    for (int i = 0; i < 4 && n > 0; i++)
        MPI_Request_free(&q[i]);
    MPI_Request_free(&single[0]);
    MPI_Request_free(&single[1]);
    int anybad;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (!r)
        printf(anybad ? "persist: WRONG\n" : "persist: ok\n");
    MPI_Finalize();
    return anybad;
}
