/* randacc [BATCHES]: the communication patterns of HPC Challenge (Debian hpcc) that broke
 * pas2p, small and self-checking.  Every rank:
 *
 *  1. updates (RandomAccess): keeps one MPI_Irecv(MPI_ANY_SOURCE, MPI_ANY_TAG) posted and
 *     polls it with MPI_Testany between small computations while it sends BATCHES batches
 *     with MPI_Isend (one in flight, MPI_Test'ed) to the next rank; then a 0-byte "done"
 *     message to every other rank, drains with MPI_Waitany until every rank said done, and
 *     cancels its last posted receive (MPI_Cancel, MPI_Wait).  How many polls find
 *     nothing, and where the receives fall among the sends, change from run to run;
 *  2. grids (PTRANS): 5 times, a seed agreed with MPI_Allreduce (RANDACC_SEED, else
 *     time(NULL)) orders the ranks of an MPI_Comm_split; they exchange on it, and the rank
 *     that lands at 0 in it, if not world rank 0, sends its result to rank 0 (an
 *     MPI_Send/MPI_Recv there in one run and not in the next);
 *  3. rounds (the single-process benchmarks): 40 rounds of a few microseconds ending at an
 *     MPI_Barrier, one of them 150 ms of computation, then 100 steps of 1 ms and an
 *     MPI_Alltoall (a phase predict measures early).
 *
 * Checks: every batch sent is received once (MPI_Allreduce of the counts), the cancelled
 * receive says cancelled, every split has np ranks.  Prints "randacc: ok"; exit 1 if not. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "spin_for.h"

enum { UPDATE = 2, DONE = 1, BATCH = 256 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, np, batches = argc > 1 ? atoi(argv[1]) : 400, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np < 2) {
        fprintf(stderr, "randacc: needs 2 ranks or more\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* 1. updates */
    static double out[BATCH], in[BATCH];
    MPI_Request inreq, outreq = MPI_REQUEST_NULL;
    MPI_Request *fin = malloc(sizeof *fin * (size_t)np);
    long got = 0, sent = 0;
    int done = 0, idx, flag;
    MPI_Status st;
    MPI_Irecv(in, BATCH, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &inreq);
    while (sent < batches) {
        do {
            MPI_Testany(1, &inreq, &idx, &flag, &st);
            if (flag) {
                if (st.MPI_TAG == UPDATE)
                    got++;
                else
                    done++;
                MPI_Irecv(in, BATCH, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &inreq);
            }
        } while (flag);
        spin_for(2e-5); /* generating updates */
        MPI_Test(&outreq, &flag, MPI_STATUS_IGNORE);
        if (flag) {
            for (int i = 0; i < BATCH; i++)
                out[i] = (double)(sent * BATCH + i);
            MPI_Isend(out, BATCH, MPI_DOUBLE, (r + 1) % np, UPDATE, MPI_COMM_WORLD, &outreq);
            sent++;
        }
    }
    for (int p = 0; p < np; p++) {
        fin[p] = MPI_REQUEST_NULL;
        if (p != r)
            MPI_Isend(NULL, 0, MPI_DOUBLE, p, DONE, MPI_COMM_WORLD, &fin[p]);
    }
    while (done < np - 1) {
        MPI_Waitany(1, &inreq, &idx, &st);
        if (st.MPI_TAG == UPDATE)
            got++;
        else
            done++;
        MPI_Irecv(in, BATCH, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &inreq);
    }
    MPI_Cancel(&inreq);
    MPI_Wait(&inreq, &st);
    int cancelled = 0;
    MPI_Test_cancelled(&st, &cancelled);
    bad |= !cancelled;
    MPI_Waitall(np, fin, MPI_STATUSES_IGNORE);
    MPI_Wait(&outreq, MPI_STATUS_IGNORE);
    long counts[2] = {sent, got}, sums[2];
    MPI_Allreduce(counts, sums, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    bad |= sums[0] != sums[1];

    /* 2. grids */
    const char *env = getenv("RANDACC_SEED");
    for (int rep = 0; rep < 5; rep++) {
        int mine = env ? atoi(env) : (int)time(NULL), seed;
        MPI_Allreduce(&mine, &seed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Comm g;
        MPI_Comm_split(MPI_COMM_WORLD, 0, (r + seed / np) % np, &g);
        int gr, gn;
        MPI_Comm_rank(g, &gr);
        MPI_Comm_size(g, &gn);
        bad |= gn != np;
        static double a[4096], b[4096];
        spin_for(2e-3);
        MPI_Sendrecv(a, 4096, MPI_DOUBLE, (gr + 1) % gn, 0, b, 4096, MPI_DOUBLE, (gr + gn - 1) % gn,
                     0, g, MPI_STATUS_IGNORE);
        double t = 1, tmax;
        MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, g);
        int at0 = gr == 0 ? r : 0, who;
        MPI_Allreduce(&at0, &who, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Comm_free(&g);
        double res[3] = {tmax, 0, 0};
        if (who != 0 && r == who)
            MPI_Send(res, 3, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
        if (who != 0 && r == 0)
            MPI_Recv(res, 3, MPI_DOUBLE, who, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
    }

    /* 3. rounds */
    for (int k = 0; k < 40; k++) {
        spin_for(k == 20 ? 0.15 : 5e-6);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    int *sa = calloc((size_t)np * 128, sizeof *sa), *ra = calloc((size_t)np * 128, sizeof *ra);
    for (int k = 0; k < 100; k++) {
        spin_for(1e-3);
        MPI_Alltoall(sa, 128, MPI_INT, ra, 128, MPI_INT, MPI_COMM_WORLD);
    }
    free(sa);
    free(ra);
    free(fin);
    int anybad;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!r)
        printf("randacc: %s\n", anybad ? "FAILED" : "ok");
    MPI_Finalize();
    return anybad ? 1 : 0;
}
