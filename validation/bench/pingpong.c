/* Tracer hot-path cost, measured in one run (validation/bench/tracer_overhead.sh).
 *
 * Under `pas2p trace` (libpas2p preloaded) the same loop is timed through MPI_* (traced:
 * our wrapper, then PMPI) and through PMPI_* directly (untraced), in alternating blocks so
 * that both see the same machine state.  The added cost per intercepted call is
 *     (median traced block - median untraced block) / calls per block.
 * Two loops:
 *   pingpong  ranks 0 and 1 exchange 0-byte messages; a round trip's critical path
 *             crosses four intercepted calls (send, the peer's receive, its send, the
 *             receive), so the added cost per call is the round-trip difference / 4;
 *   procnull  MPI_Send to MPI_PROC_NULL: almost no MPI work, so the difference is the
 *             wrapper alone, with less noise.
 * usage: pingpong [ITERS_PER_BLOCK [BLOCKS]]   (np = 2) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

typedef int (*send_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
typedef int (*recv_fn)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *);

static double pingpong(send_fn s, recv_fn r, int rank, int iters)
{
    char b = 0;
    MPI_Status st;
    PMPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        if (rank == 0) {
            s(&b, 0, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
            r(&b, 0, MPI_CHAR, 1, 0, MPI_COMM_WORLD, &st);
        } else {
            r(&b, 0, MPI_CHAR, 0, 0, MPI_COMM_WORLD, &st);
            s(&b, 0, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
        }
    }
    return MPI_Wtime() - t0;
}

static double procnull(send_fn s, int iters)
{
    char b = 0;
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++)
        s(&b, 0, MPI_CHAR, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    return MPI_Wtime() - t0;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
    int rank, np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int iters = argc > 1 ? atoi(argv[1]) : 20000, blocks = argc > 2 ? atoi(argv[2]) : 21;
    if (np != 2 || iters <= 0 || blocks <= 0 || blocks > 1000) {
        if (rank == 0)
            fprintf(stderr, "usage: mpirun -np 2 pingpong [ITERS_PER_BLOCK [BLOCKS<=1000]]\n");
        MPI_Finalize();
        return 2;
    }
    double *tr = malloc(sizeof(double) * (size_t)blocks), *un = malloc(sizeof(double) * (size_t)blocks);
    double *ntr = malloc(sizeof(double) * (size_t)blocks), *nun = malloc(sizeof(double) * (size_t)blocks);
    pingpong(PMPI_Send, PMPI_Recv, rank, iters / 10 + 1); /* warm-up */
    for (int b = 0; b < blocks; b++) {
        if (b % 2) { /* alternate the order too */
            tr[b] = pingpong(MPI_Send, MPI_Recv, rank, iters);
            un[b] = pingpong(PMPI_Send, PMPI_Recv, rank, iters);
        } else {
            un[b] = pingpong(PMPI_Send, PMPI_Recv, rank, iters);
            tr[b] = pingpong(MPI_Send, MPI_Recv, rank, iters);
        }
        nun[b] = procnull(PMPI_Send, iters);
        ntr[b] = procnull(MPI_Send, iters);
    }
    double mt = median(tr, blocks), mu = median(un, blocks);
    double nt = median(ntr, blocks), nu = median(nun, blocks);
    if (rank == 0) {
        printf("pingpong_untraced = %.1f ns per round trip\n", mu / iters * 1e9);
        printf("pingpong_traced = %.1f ns per round trip\n", mt / iters * 1e9);
        printf("pingpong_added = %.1f ns per call\n", (mt - mu) / (4.0 * iters) * 1e9);
        printf("procnull_untraced = %.1f ns per call\n", nu / iters * 1e9);
        printf("procnull_traced = %.1f ns per call\n", nt / iters * 1e9);
        printf("procnull_added = %.1f ns per call\n", (nt - nu) / iters * 1e9);
    }
    free(tr);
    free(un);
    free(ntr);
    free(nun);
    MPI_Finalize();
    return 0;
}
