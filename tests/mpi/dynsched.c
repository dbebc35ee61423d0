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
 * dynsched N m: MUMPS's solves as they vary within one run.  Each of N solves: every
 * worker sends 4 small results at uneven moments (0-0.6 ms apart, varying by solve); the
 * master computes in 4 chunks, after each one sends every worker an acknowledgement and
 * receives what has arrived (MPI_Iprobe(MPI_ANY_SOURCE) until it finds nothing), then
 * waits for the rest (MPI_Probe); an MPI_Allreduce.  How many of the master's probes find a
 * message after each chunk is timing: no two solves make the same calls in the same order.
 * Checks what it receives and prints "dynsched: ok". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "spin_for.h"

/* dynsched N m (above) */
static int mixed(int r, int np, int n)
{
    int bad = 0, one = 1, all = 0;
    for (int it = 0; it < n; it++) {
        if (r == 0) {
            int got = 0, want = 4 * (np - 1), v, flag;
            MPI_Status st;
            for (int c = 0; c < 4; c++) {
                spin_for(3e-4);
                for (int w = 1; w < np; w++)
                    MPI_Send(&c, 1, MPI_INT, w, 6, MPI_COMM_WORLD);
                for (flag = 1; got < want && flag;) {
                    MPI_Iprobe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &flag, &st);
                    if (flag) {
                        MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                        bad |= v / 100 != it;
                        got++;
                    }
                }
            }
            for (; got < want; got++) {
                MPI_Probe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &st);
                MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                bad |= v / 100 != it;
            }
        } else {
            unsigned seed = (unsigned)(it * 7919 + r);
            for (int m = 0; m < 4; m++) {
                spin_for(6e-4 * (double)(rand_r(&seed) % 1000) / 1000.0);
                int v = it * 100 + m;
                MPI_Send(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
            }
            for (int c = 0; c < 4; c++) {
                int a = -1;
                MPI_Recv(&a, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                bad |= a != c;
            }
        }
        MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        bad |= all != np;
    }
    return bad;
}

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
    if (argc > 1 && strchr(argv[1], 'm')) {
        int anybad = 0;
        bad = mixed(r, np, n);
        MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
        if (!r)
            printf(anybad ? "dynsched: wrong values\n" : "dynsched: ok\n");
        MPI_Finalize();
        return anybad;
    }
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
