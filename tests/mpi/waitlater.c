/* waitlater N: StarPU-MPI's pattern, np 2.  Each iteration rank 0 posts a wildcard
 * MPI_Irecv (an "envelope", the oldest pending request), then MPI_Waits for a later
 * MPI_Isend, sends again and waits, and polls the envelope with MPI_Test until rank 1's
 * answer comes -- which rank 1 sends only after rank 0's second message.  A replay that
 * completes "the oldest pending request" at each Wait waits for the envelope there:
 * deadlock (SimGrid says so; real MPI hangs to the watchdog).  waitlater Nw: the first
 * wait is an MPI_Waitsome over the envelope and the send, which completes the send only
 * (yorick's mpy).  Prints "waitlater: ok". */
#include <string.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "spin_for.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, n = argc > 1 ? atoi(argv[1]) : 40, bad = 0;
    int some = argc > 1 && strchr(argv[1], 'w') != NULL;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long env = -1, data[64] = {0};
    for (int it = 0; it < n; it++) {
        if (rank == 0) {
            MPI_Request a, b, c;
            int done = 0;
            MPI_Irecv(&env, 1, MPI_LONG, MPI_ANY_SOURCE, 42, MPI_COMM_WORLD, &a);
            MPI_Isend(&it, 1, MPI_INT, 1, 42, MPI_COMM_WORLD, &b);
            if (some) { /* the envelope's message comes after the next send: the send only */
                MPI_Request ab[2] = {a, b};
                int k = 0, idx[2];
                MPI_Waitsome(2, ab, &k, idx, MPI_STATUSES_IGNORE);
                bad |= k != 1 || idx[0] != 1;
                a = ab[0];
            } else {
                MPI_Wait(&b, MPI_STATUS_IGNORE);
            }
            data[0] = it;
            MPI_Isend(data, 64, MPI_LONG, 1, 43, MPI_COMM_WORLD, &c);
            MPI_Wait(&c, MPI_STATUS_IGNORE);
            while (!done)
                MPI_Test(&a, &done, MPI_STATUS_IGNORE);
            bad |= env != it;
        } else {
            MPI_Request a, d;
            int got = -1;
            long in[64];
            MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 42, MPI_COMM_WORLD, &a);
            MPI_Wait(&a, MPI_STATUS_IGNORE);
            MPI_Irecv(in, 64, MPI_LONG, 0, 43, MPI_COMM_WORLD, &d);
            MPI_Wait(&d, MPI_STATUS_IGNORE);
            env = in[0];
            bad |= got != it;
            MPI_Send(&env, 1, MPI_LONG, 0, 42, MPI_COMM_WORLD);
        }
        spin_for(0.0005);
    }
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("waitlater: %s\n", all ? "FAILED" : "ok");
    MPI_Finalize();
    return all;
}
