/* pollreply N: Graph500's BFS pattern, np 2.  Each iteration rank 0 sends a request with
 * MPI_Isend (left pending to the end: the oldest requests), posts MPI_Irecv for the answer
 * and polls it with MPI_Test until it comes, then works on the answer (0.2 ms).  Rank 1
 * receives the request, works 0.2 ms and sends the answer (MPI_Isend, also left pending to
 * the end: no send waits for its receiver).  Rank 0 cannot work on an
 * answer before it has come: a replay that runs on past the test that completed the
 * receive (not the oldest request, so not `wait k`) lets rank 0 race ahead, and a slow
 * network costs the run about one latency in all, not two per iteration.  `pollreply
 * Nany`: the answer received with MPI_ANY_SOURCE (a farm's master, Graph500's own
 * receives).  Prints "pollreply: ok". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "spin_for.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, n = argc > 1 ? atoi(argv[1]) : 40, bad = 0;
    int any = argc > 1 && strstr(argv[1], "any");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Request *s = malloc((size_t)(n > 0 ? n : 1) * sizeof *s);
    int *req = malloc((size_t)(n > 0 ? n : 1) * sizeof *req);
    for (int it = 0; it < n; it++) {
        if (rank == 0) {
            MPI_Request r;
            int ans = -1, done = 0;
            req[it] = it;
            MPI_Isend(&req[it], 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &s[it]);
            MPI_Irecv(&ans, 1, MPI_INT, any ? MPI_ANY_SOURCE : 1, 2, MPI_COMM_WORLD, &r);
            while (!done)
                MPI_Test(&r, &done, MPI_STATUS_IGNORE);
            bad |= ans != 2 * it;
            spin_for(0.0002);
        } else {
            int q = -1;
            MPI_Recv(&q, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            bad |= q != it;
            spin_for(0.0002);
            req[it] = 2 * q;
            MPI_Isend(&req[it], 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &s[it]);
        }
    }
    MPI_Waitall(n, s, MPI_STATUSES_IGNORE);
    free(s);
    free(req);
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("pollreply: %s\n", all ? "FAILED" : "ok");
    MPI_Finalize();
    return all;
}
