/* Test subject: MPI called from a helper thread while the main thread computes (MolDS's
 * pattern: Boost.MPI sends and receives from short-lived threads), np = 2.  Each step: a
 * helper thread exchanges with the other rank, computes, exchanges again; the main thread
 * computes meanwhile, joins it and ends the step with an MPI_Allreduce.  The calls never
 * overlap (MPI_THREAD_SERIALIZED is enough); the threads' computation does, which a trace
 * that adds each thread's own gaps counts twice.
 * Per rank: Init_thread 1, Sendrecv 2*STEPS, Allreduce STEPS, Finalize 1. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

#define STEPS 40

static int peer;
static volatile double sink;

static void work(long n)
{
    double x = 0;
    for (long i = 0; i < n; i++)
        x += (double)i * 1e-9;
    sink += x;
}

static void *helper(void *arg)
{
    int out = *(int *)arg, in = -1;
    MPI_Sendrecv(&out, 1, MPI_INT, peer, 0, &in, 1, MPI_INT, peer, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    work(400000);
    MPI_Sendrecv(&out, 1, MPI_INT, peer, 1, &in, 1, MPI_INT, peer, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
    double one = 1, sum = 0;
    for (int s = 0; s < STEPS; s++) {
        pthread_t th;
        pthread_create(&th, NULL, helper, &s);
        work(800000);
        pthread_join(th, NULL);
        MPI_Allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    if (rank == 0)
        printf("helperthread = %s\n", sum == 2 ? "OK" : "FAILED");
    return sum != 2;
}
