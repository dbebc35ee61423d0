/* probemt N: MPI_THREAD_MULTIPLE with a helper thread that makes one MPI call (so the
 * analysis keeps per-rank phases), and a main loop where rank 1 sizes each message with
 * MPI_Probe before receiving it (yade's pattern).  Per-rank phases number every call, the
 * probes included, as predict's runtime does for them: the per-rank analysis of a trace
 * that falls back to them must not number calls for global phases (no probes: yade's every
 * predict diverged at its first MPI_Probe). */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "spin_for.h"

static MPI_Comm dup;

static void *helper(void *x)
{
    MPI_Barrier(dup);
    return x;
}

int main(int argc, char **argv)
{
    int prov, r, n, iters = argc > 1 ? atoi(argv[1]) : 50;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &prov);
    if (prov < MPI_THREAD_MULTIPLE) {
        printf("probemt: no MPI_THREAD_MULTIPLE\n");
        MPI_Finalize();
        return 0;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    pthread_t t;
    if (pthread_create(&t, NULL, helper, NULL) == 0)
        pthread_join(t, NULL);
    static double a[1024], b[1024];
    MPI_Status st;
    for (int it = 0; it < iters; it++) {
        spin_for(0.002);
        if (r == 0) {
            MPI_Send(a, 100 + it % 3, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD);
        } else if (r == 1) {
            MPI_Probe(0, 7, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_DOUBLE, &n);
            MPI_Recv(b, n, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Comm_free(&dup);
    if (r == 0)
        printf("probemt: ok\n");
    MPI_Finalize();
    return 0;
}
