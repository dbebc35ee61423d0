/* endshort N: a message-driven run, like Ray's: each rank sends N messages of sizes and tags
 * that follow no period to the other and serves whatever arrives (MPI_Iprobe from any
 * source, then MPI_Recv), with no collective: nothing repeats, the whole run is one phase,
 * timed whole to MPI_Finalize by predict.  ENDSHORT_LESS=K sends K fewer messages (another
 * run of the same program and input making a few calls fewer, as Ray's runs do). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "spin_for.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, np, n = argc > 1 ? atoi(argv[1]) : 400;
    const char *less = getenv("ENDSHORT_LESS");
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (less && r == 0)
        n -= atoi(less);
    static char out[1 << 16], in[1 << 16];
    int peer = (r + 1) % np, done = 0, ended = 0, sent = 0;
    unsigned x = 12345u + (unsigned)r;
    while (ended < np - 1 || !done) {
        if (!done) {
            x = x * 1103515245u + 12345u;
            int bytes = 8 << ((x >> 16) % 9), tag = (int)((x >> 8) % 97);
            spin_for(0.0002);
            if (sent == n) {
                MPI_Send(out, 0, MPI_CHAR, peer, 999, MPI_COMM_WORLD); /* the end */
                done = 1;
            } else {
                MPI_Send(out, bytes, MPI_CHAR, peer, tag, MPI_COMM_WORLD);
                sent++;
            }
        }
        int flag;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        if (flag) {
            MPI_Recv(in, sizeof in, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
            ended += st.MPI_TAG == 999;
        }
    }
    if (r == 0)
        printf("endshort: ok\n");
    MPI_Finalize();
    return 0;
}
