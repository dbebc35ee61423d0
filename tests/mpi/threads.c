/* Test subject: MPI_THREAD_MULTIPLE, two threads per rank, each exchanging ITER messages
 * with the other rank on its own duplicated communicator (np = 2).
 * Per rank: Init_thread 1, Comm_dup 2, Sendrecv 2*ITER, Comm_free 2, Barrier 1, Finalize 1.
 * `threads main`: the same calls, the two loops one after the other on the main thread (an
 * application that asks for MPI_THREAD_MULTIPLE and calls MPI from one thread). */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

#define ITER 200

static MPI_Comm comms[2];
static int peer, bad[2];

static void *work(void *arg)
{
    int t = *(int *)arg;
    for (int i = 0; i < ITER; i++) {
        int out = i * 2 + t, in = -1;
        MPI_Sendrecv(&out, 1, MPI_INT, peer, t, &in, 1, MPI_INT, peer, t, comms[t], MPI_STATUS_IGNORE);
        bad[t] |= in != out;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            printf("threads: MPI_THREAD_MULTIPLE not provided\n");
        MPI_Abort(MPI_COMM_WORLD, 77);
    }
    peer = 1 - rank;
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[0]);
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
    pthread_t th[2];
    int ids[2] = {0, 1}, main_only = argc > 1 && argv[1][0] == 'm';
    for (int t = 0; t < 2; t++)
        if (main_only)
            work(&ids[t]);
        else
            pthread_create(&th[t], NULL, work, &ids[t]);
    for (int t = 0; t < 2 && !main_only; t++)
        pthread_join(th[t], NULL);
    MPI_Comm_free(&comms[0]);
    MPI_Comm_free(&comms[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    if (rank == 0)
        printf("threads = %s\n", bad[0] || bad[1] ? "FAILED" : "OK");
    return bad[0] || bad[1];
}
