/* ep [MS [N]]: an EP-like code: every rank computes MS ms (default 200) once, then one
 * MPI_Reduce gathers the result, or with N, N MPI_Allreduce calls in a row (NAS EP's shape:
 * 4).  Its only relevant work happens once, at the end: predict has nothing that repeats,
 * times it, runs to the end and says so.  With N the computation ends at the same call as
 * N - 1 cheap ones, which must not make it a phase of N occurrences whose median is cheap
 * (NAS EP was predicted at 0.02 % of its run).  EP_ROOT=R (environment) broadcasts a seed
 * from rank 0 before the computation and reduces to rank R at the end (default 0): the
 * root of a call in a relevant phase of weight 1 that changes from run to run (dolfinx's
 * partitioning does). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    double ms = argc > 1 ? atof(argv[1]) : 200, sum = 0, tot = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *er = getenv("EP_ROOT");
    int root = er ? atoi(er) : 0;
    if (er) {
        double seed = 1;
        MPI_Bcast(&seed, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        sum = seed - 1;
    }
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    unsigned long k = 0;
    do {
        for (int i = 0; i < 1000; i++)
            sum += 1.0 / (double)(++k);
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((double)(t.tv_sec - t0.tv_sec) * 1e3 + (double)(t.tv_nsec - t0.tv_nsec) * 1e-6 < ms);
    int n = argc > 2 ? atoi(argv[2]) : 0;
    if (n < 1)
        MPI_Reduce(&sum, &tot, 1, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
    for (int i = 0; i < n; i++)
        MPI_Allreduce(&sum, &tot, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == root)
        printf("ep: sum = %.6f\n", tot);
    MPI_Finalize();
    return 0;
}
