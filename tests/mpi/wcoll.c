/* wcoll N: N iterations of an MPI_Alltoallw whose datatypes differ per peer (ints to even
 * ranks, doubles to odd ones, 2 + rank elements each), an MPI_Ialltoallw of the same
 * completed by MPI_Wait, computation and an MPI_Allreduce.  Checks what it receives and
 * prints "wcoll: ok".  Replayed as an alltoallv of each peer's bytes (tests/wcoll.sh). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "spin_for.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, np, n = argc > 1 ? atoi(argv[1]) : 30, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int *sc = calloc((size_t)np, sizeof *sc), *rc = calloc((size_t)np, sizeof *rc),
        *sd = calloc((size_t)np, sizeof *sd), *rd = calloc((size_t)np, sizeof *rd);
    MPI_Datatype *st = calloc((size_t)np, sizeof *st), *rt = calloc((size_t)np, sizeof *rt);
    double *sbuf = calloc((size_t)np * 16, sizeof *sbuf), *rbuf = calloc((size_t)np * 16, sizeof *rbuf);
    if (!sc || !rc || !sd || !rd || !st || !rt || !sbuf || !rbuf)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int p = 0; p < np; p++) { /* to p: 2 + r elements of p's type; from p: 2 + p of mine */
        sc[p] = 2 + r;
        st[p] = p % 2 ? MPI_DOUBLE : MPI_INT;
        rc[p] = 2 + p;
        rt[p] = r % 2 ? MPI_DOUBLE : MPI_INT;
        sd[p] = rd[p] = p * 16 * (int)sizeof(double);
    }
    for (int it = 0; it < n; it++) {
        for (int p = 0; p < np; p++)
            for (int k = 0; k < sc[p]; k++) {
                if (p % 2)
                    sbuf[p * 16 + k] = r * 100 + it;
                else
                    ((int *)&sbuf[p * 16])[k] = r * 100 + it;
            }
        MPI_Request q;
        if (it % 2)
            MPI_Alltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, MPI_COMM_WORLD);
        else {
            MPI_Ialltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, MPI_COMM_WORLD, &q);
            MPI_Wait(&q, MPI_STATUS_IGNORE);
        }
        for (int p = 0; p < np; p++)
            for (int k = 0; k < rc[p]; k++)
                bad |= (r % 2 ? rbuf[p * 16 + k] : ((int *)&rbuf[p * 16])[k]) != p * 100 + it;
        spin_for(5e-4);
        double a = 1, b;
        MPI_Allreduce(&a, &b, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    int anybad;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (!r)
        printf(anybad ? "wcoll: WRONG\n" : "wcoll: ok\n");
    free(sc), free(rc), free(sd), free(rd), free(st), free(rt), free(sbuf), free(rbuf);
    MPI_Finalize();
    return anybad;
}
