/* sweep N K M MS: a NetPIPE-like run (tests/predict_stop.sh, modes late and tail).  N
 * ping-pong iterations of 8 bytes with 1 ms of computation, then K stages (up to 3) of M
 * iterations each, stage s with messages of 2400 x 12^(s-1) bytes (over 10x and the
 * analyzer's 1 KiB size floor apart from each other and from the first stage's: a phase each)
 * and MS ms of computation per iteration.  The first stage holds most of the calls; the K
 * later ones start in the second half of the run's events.  With N = 100, K = 3, M = 20,
 * MS = 3 they are ~64 % of the run, ~21 % each (under 25 % each, over it together however
 * slow the messages get on a loaded machine: each ping-pong's latency L adds 100 L to the
 * first stage and 20 L to each later one): no wind-down that predict may estimate from
 * the first stage's ratio (NetPIPE's sweep, four such stages of 14-20 % each, was
 * predicted at 8.5x its run that way).  With K = 1, M = 5 the one stage is ~13 % at
 * most, and it may.  Rank 0 says each stage on stderr as NetPIPE does, "stage s: " then
 * "ok" and the newline when it is over: predict's stop cuts a line, and the launcher's
 * abort banner must still not reach the user.  The program checks what it receives. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "spin_for.h"

static void pingpong(int rank, char *buf, int bytes, int iters, double ms)
{
    for (int it = 0; it < iters; it++) {
        if (rank == 0) {
            memset(buf, it & 0x7f, (size_t)bytes);
            MPI_Send(buf, bytes, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(buf, bytes, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, bytes, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (buf[bytes - 1] != (it & 0x7f))
                MPI_Abort(MPI_COMM_WORLD, 3);
            MPI_Send(buf, bytes, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
        }
        spin_for(ms * 1e-3);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int n = argc > 1 ? atoi(argv[1]) : 600, k = argc > 2 ? atoi(argv[2]) : 5,
        m = argc > 3 ? atoi(argv[3]) : 40;
    double ms = argc > 4 ? atof(argv[4]) : 2;
    if (np != 2 || k < 0 || k > 3 || n < 1 || m < 1) { /* 2400 x 12^2 = 345.6 kB at most */
        if (rank == 0)
            fprintf(stderr, "usage: mpirun -np 2 sweep N K(0-3) M MS\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *buf = calloc(345600, 1);
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 2);
    pingpong(rank, buf, 8, n, 1);
    for (int s = 1, bytes = 2400; s <= k; s++, bytes *= 12) {
        if (rank == 0) {
            fprintf(stderr, "stage %d: ", s);
            fflush(stderr);
        }
        pingpong(rank, buf, bytes, m, ms);
        if (rank == 0)
            fprintf(stderr, "ok\n");
    }
    if (rank == 0)
        printf("sweep: done\n");
    free(buf);
    MPI_Finalize();
    return 0;
}
