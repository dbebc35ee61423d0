/* stream N: ABySS's message loop.  Rank 0 sends N small messages (MPI_Send, ~20 us of
 * computation apart); rank 1 keeps one MPI_Irecv from any source posted and polls it with
 * MPI_Test, computing ~10 us between polls, and posts the next when it completes.  Then
 * rank 1 posts one more wildcard receive that no message ever matches and leaves it
 * pending (ABySS does), and both end with an MPI_Allreduce.  Checks what it receives and
 * prints "stream: ok". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "spin_for.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, np, n = argc > 1 ? atoi(argv[1]) : 1000, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np != 2) {
        if (!r)
            fprintf(stderr, "stream: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int x = 0, last = -1;
    MPI_Request q = MPI_REQUEST_NULL;
    for (int i = 0; i < n; i++) {
        if (r == 0) {
            spin_for(2e-5);
            MPI_Send(&i, 1, MPI_INT, 1, 1 + i % 3, MPI_COMM_WORLD);
        } else {
            int f = 0;
            MPI_Status st;
            MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &q);
            while (!f) {
                spin_for(1e-5);
                MPI_Test(&q, &f, &st);
            }
            bad |= x != last + 1 || st.MPI_TAG != 1 + x % 3;
            last = x;
        }
    }
    if (r == 1) /* never matched: left pending to the end */
        MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &q);
    int anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (!r)
        printf(anybad ? "stream: wrong values\n" : "stream: ok\n");
    MPI_Finalize();
    return anybad;
}
