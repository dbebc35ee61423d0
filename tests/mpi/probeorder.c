/* probeorder [ITERS]: MUMPS's exchange as getdp makes it.  Before sending, a rank polls with
 * MPI_Iprobe(MPI_ANY_SOURCE) for its peer's message (4 polls at most); one that finds it
 * receives it before its own MPI_Isend, one that does not sends first, then waits for it
 * with a blocking MPI_Probe(MPI_ANY_SOURCE) and receives it.
 * Which rank finds the message depends only on which one reaches the exchange first: the
 * late rank alternates from iteration to iteration, and SLOW=0 or 1 (environment; default
 * 1) says which one starts late -- two runs of the same program and input with other
 * timing.  Between exchanges, 60 MPI_Allreduce with a little computation each, so that the
 * successful probes are under 1 % of the calls (tests/cmake/signature.cmake,
 * predict_probe_order).  The program checks what it receives. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "spin_for.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np != 2) {
        if (r == 0)
            fprintf(stderr, "probeorder: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *sl = getenv("SLOW");
    int slow = sl ? atoi(sl) : 1, peer = 1 - r, iters = argc > 1 ? atoi(argv[1]) : 30;
    char sbuf[2412], rbuf[4096];
    memset(sbuf, 'a' + r, sizeof sbuf);
    double x = 1, y;
    for (int it = 0; it < iters; it++) {
        for (int k = 0; k < 60; k++) {
            spin_for(2e-4);
            MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        }
        spin_for(r == (it + slow) % 2 ? 0.02 : 0.001); /* the late rank */
        int got = 0, flag, n;
        MPI_Status st;
        MPI_Request q;
        for (int k = 0; k < 4 && !got; k++) { /* poll before sending */
            MPI_Iprobe(MPI_ANY_SOURCE, 43, MPI_COMM_WORLD, &flag, &st);
            if (flag) {
                MPI_Recv(rbuf, sizeof rbuf, MPI_CHAR, MPI_ANY_SOURCE, 43, MPI_COMM_WORLD, &st);
                got = 1;
            } else {
                spin_for(5e-4);
            }
        }
        MPI_Isend(sbuf, r ? 676 : 2412, MPI_CHAR, peer, 43, MPI_COMM_WORLD, &q);
        if (!got) { /* MUMPS waits with a blocking probe when its polls found nothing */
            MPI_Probe(MPI_ANY_SOURCE, 43, MPI_COMM_WORLD, &st);
            MPI_Recv(rbuf, sizeof rbuf, MPI_CHAR, st.MPI_SOURCE, 43, MPI_COMM_WORLD, &st);
        }
        MPI_Get_count(&st, MPI_CHAR, &n);
        if (n != (r ? 2412 : 676) || rbuf[n - 1] != 'a' + peer)
            MPI_Abort(MPI_COMM_WORLD, 3);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    }
    if (r == 0)
        printf("probeorder: done\n");
    MPI_Finalize();
    return 0;
}
