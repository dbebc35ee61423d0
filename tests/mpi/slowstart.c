/* slowstart.c: a phase whose occurrences are mostly fast (0.3 ms) with a slow one (20 ms)
 * every 10th iteration; with env SLOWSTART=N the first N iterations are slow too (a target
 * run that starts with a hiccup, as OpenCoarrays' sync images did under Open MPI).
 * pas2p predict multiplied the base MEAN by the ratio target/base of the paired
 * occurrences, all in the slow start (62x): PET 6.14 s for a run of 0.82 s.  It now waits,
 * past its budget if need be, for the change of pace and estimates from after it (test
 * predict_slow_start; signature/pas2p_times.h, pas2p_times_pair).
 * usage: slowstart [ITERATIONS] (default 300) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
static void spin(double s) { double t = MPI_Wtime(); while (MPI_Wtime() - t < s) ; }
int main(int argc, char **argv)
{
    int rank, np, n = argc > 1 ? atoi(argv[1]) : 300;
    const char *e = getenv("SLOWSTART");
    int slowstart = e ? atoi(e) : 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    double x = rank, y, t0 = MPI_Wtime();
    for (int i = 0; i < n; i++) {
        spin((i % 10 == 5 || i < slowstart) ? 0.020 : 0.0003);
        MPI_Sendrecv(&x, 1, MPI_DOUBLE, (rank + 1) % np, 0, &y, 1, MPI_DOUBLE,
                     (rank + np - 1) % np, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Allreduce(&y, &x, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0) printf("run %.3f s\n", MPI_Wtime() - t0);
    MPI_Finalize();
    return 0;
}
