/* dynsched N: MUMPS's pattern, with what timing changes in MUMPS chosen by the environment
 * variable DYNSCHED_SEED (0 or 1) so that a test can change it between runs
 * (tests/dynsched.sh).  Rank 0 is the master, the others workers.
 *  - the factorization, once (~30 ms of computation): each worker sends the master a
 *    front whose size the dynamic scheduling decides (SEED 1: 16 KB, 0: 160 KB); the
 *    master takes them with MPI_Probe(MPI_ANY_SOURCE) + MPI_Recv; an MPI_Allreduce;
 *  - N solves (~2 ms each): each worker sends a 12 KB block (tag 3) and a 4-byte flag (tag
 *    21); the master finds each with a wildcard probe -- SEED 1: the block with MPI_Probe,
 *    the flag with a polling MPI_Iprobe; SEED 0 the other way round (whether a message is
 *    already there when MUMPS looks is timing) -- and receives it from the rank the
 *    probe found; an MPI_Allreduce.
 * SEED 2 is another input: the solves' blocks are 24 KB (the factorization as SEED 1's).
 * Checks what it receives and prints "dynsched: ok". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "spin_for.h"

/* a wildcard probe of tag `tag`, blocking or polled: the source it found */
static int find(int tag, int poll, MPI_Status *st)
{
    if (poll) {
        int flag = 0;
        while (!flag)
            MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, st);
    } else {
        MPI_Probe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, st);
    }
    return st->MPI_SOURCE;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, np, n = argc > 1 ? atoi(argv[1]) : 40, bad = 0;
    const char *e = getenv("DYNSCHED_SEED");
    int seed = e ? atoi(e) : 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int front = seed ? 4000 : 40000, block = seed == 2 ? 6000 : 3000;
    int *buf = calloc((size_t)(front > block ? front : block), sizeof *buf);
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Status st;
    spin_for(0.03);
    if (r == 0) {
        for (int k = 1; k < np; k++) {
            int src = find(7, 0, &st), cnt = 0;
            MPI_Get_count(&st, MPI_INT, &cnt);
            bad |= cnt != front;
            MPI_Recv(buf, front, MPI_INT, src, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            bad |= buf[0] != src;
        }
    } else {
        buf[0] = r;
        MPI_Send(buf, front, MPI_INT, 0, 7, MPI_COMM_WORLD);
    }
    int one = 1, all = 0;
    MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    bad |= all != np;
    for (int it = 0; it < n; it++) {
        spin_for(0.002);
        if (r == 0) {
            for (int k = 1; k < np; k++) {
                int src = find(3, seed == 0, &st);
                MPI_Recv(buf, block, MPI_INT, src, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                bad |= buf[0] != src * 1000 + it;
                int flag = -1;
                src = find(21, seed != 0, &st);
                MPI_Recv(&flag, 1, MPI_INT, src, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                bad |= flag != it;
            }
        } else {
            buf[0] = r * 1000 + it;
            MPI_Send(buf, block, MPI_INT, 0, 3, MPI_COMM_WORLD);
            MPI_Send(&it, 1, MPI_INT, 0, 21, MPI_COMM_WORLD);
        }
        MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        bad |= all != np;
    }
    int anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (!r)
        printf(anybad ? "dynsched: wrong values\n" : "dynsched: ok\n");
    free(buf);
    MPI_Finalize();
    return anybad;
}
