/* Test subject for the wildcard receive flags (np = 3): rank 0 is a master receiving from
 * workers 1 and 2 with and without MPI_ANY_SOURCE / MPI_ANY_TAG, in a fixed order that
 * `check_trace anysrc` verifies event by event (tests/check_trace.c).  Every stage ends
 * with a barrier, so a wildcard receive can only match a message of its own stage.
 *   A  Recv(ANY_SOURCE, 1) x2                     workers: Send tag 1
 *   B  Recv(1, ANY_TAG), Recv(2, ANY_TAG)         workers: Send tag 100 + rank
 *   C  Recv(ANY_SOURCE, ANY_TAG) x2               workers: Send tag 200 + rank
 *   D  Recv(1, 3), Recv(2, 3)  (fixed)            workers: Send tag 3
 *   E  Irecv(ANY_SOURCE, ANY_TAG) x2 + Waitany x2 workers: Send tag 300 + rank
 *   F  Irecv(1, 4), Irecv(2, 4) + Waitall (fixed) workers: Send tag 4
 *   G  Iprobe(ANY_SOURCE, ANY_TAG) (false: nothing sent yet), barrier, Iprobe(ANY_SOURCE, 5)
 *      until true, Recv(source, 5)                worker 1: Send tag 5 after the barrier
 *   H  Recv_init(ANY_SOURCE, 6), (Start + Wait) x2  workers: Send tag 6
 *   I  Sendrecv(to 1 tag 7, from ANY_SOURCE ANY_TAG)  worker 1: Sendrecv(to 0 tag 8, from 0 tag 7)
 *   J  Sendrecv_replace(to 2 tag 9, from 2 ANY_TAG)   worker 2: Sendrecv_replace(0, 10, 0, 9)
 *   K  Probe(ANY_SOURCE, ANY_TAG), Recv(source, tag)  worker 2: Send tag 11
 * Payloads are checked; exits 1 if MPI misbehaves. */
#include <mpi.h>
#include <stdio.h>

static int fail(const char *what, int rank)
{
    fprintf(stderr, "anysrc: rank %d: %s\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
}

int main(int argc, char **argv)
{
    int rank, np, v, seen;
    MPI_Status st;
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(w, &rank);
    MPI_Comm_size(w, &np);
    if (np != 3)
        return fail("run me with -np 3", rank);

    /* A */
    if (rank == 0) {
        seen = 0;
        for (int k = 0; k < 2; k++) {
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 1, w, &st);
            seen |= 1 << v;
        }
        if (seen != 6)
            return fail("A", rank);
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 1, w);
    }
    MPI_Barrier(w);
    /* B */
    if (rank == 0) {
        for (int s = 1; s <= 2; s++) {
            MPI_Recv(&v, 1, MPI_INT, s, MPI_ANY_TAG, w, &st);
            if (v != s || st.MPI_TAG != 100 + s)
                return fail("B", rank);
        }
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 100 + rank, w);
    }
    MPI_Barrier(w);
    /* C */
    if (rank == 0) {
        seen = 0;
        for (int k = 0; k < 2; k++) {
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, w, &st);
            if (st.MPI_TAG != 200 + v || st.MPI_SOURCE != v)
                return fail("C", rank);
            seen |= 1 << v;
        }
        if (seen != 6)
            return fail("C", rank);
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 200 + rank, w);
    }
    MPI_Barrier(w);
    /* D */
    if (rank == 0) {
        for (int s = 1; s <= 2; s++) {
            MPI_Recv(&v, 1, MPI_INT, s, 3, w, MPI_STATUS_IGNORE);
            if (v != s)
                return fail("D", rank);
        }
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 3, w);
    }
    MPI_Barrier(w);
    /* E */
    if (rank == 0) {
        MPI_Request rq[2];
        int got[2], idx;
        seen = 0;
        for (int k = 0; k < 2; k++)
            MPI_Irecv(&got[k], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, w, &rq[k]);
        for (int k = 0; k < 2; k++) {
            MPI_Waitany(2, rq, &idx, &st);
            if (st.MPI_TAG != 300 + got[idx])
                return fail("E tag", rank);
            seen |= 1 << got[idx];
        }
        if (seen != 6)
            return fail("E", rank);
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 300 + rank, w);
    }
    MPI_Barrier(w);
    /* F */
    if (rank == 0) {
        MPI_Request rq[2];
        int got[2];
        for (int s = 1; s <= 2; s++)
            MPI_Irecv(&got[s - 1], 1, MPI_INT, s, 4, w, &rq[s - 1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        if (got[0] != 1 || got[1] != 2)
            return fail("F", rank);
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 4, w);
    }
    MPI_Barrier(w);
    /* G */
    if (rank == 0) {
        int flag = 0;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, w, &flag, &st);
        if (flag)
            return fail("G: a message before the barrier", rank);
        MPI_Barrier(w);
        while (!flag)
            MPI_Iprobe(MPI_ANY_SOURCE, 5, w, &flag, &st);
        MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, 5, w, MPI_STATUS_IGNORE);
        if (v != 1 || st.MPI_SOURCE != 1)
            return fail("G", rank);
    } else {
        MPI_Barrier(w);
        if (rank == 1)
            MPI_Send(&rank, 1, MPI_INT, 0, 5, w);
    }
    MPI_Barrier(w);
    /* H */
    if (rank == 0) {
        MPI_Request pr;
        seen = 0;
        MPI_Recv_init(&v, 1, MPI_INT, MPI_ANY_SOURCE, 6, w, &pr);
        for (int k = 0; k < 2; k++) {
            MPI_Start(&pr);
            MPI_Wait(&pr, &st);
            seen |= 1 << v;
        }
        MPI_Request_free(&pr);
        if (seen != 6)
            return fail("H", rank);
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 6, w);
    }
    MPI_Barrier(w);
    /* I */
    if (rank == 0) {
        int out = 70;
        MPI_Sendrecv(&out, 1, MPI_INT, 1, 7, &v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, w, &st);
        if (v != 80 || st.MPI_SOURCE != 1 || st.MPI_TAG != 8)
            return fail("I", rank);
    } else if (rank == 1) {
        int out = 80;
        MPI_Sendrecv(&out, 1, MPI_INT, 0, 8, &v, 1, MPI_INT, 0, 7, w, MPI_STATUS_IGNORE);
        if (v != 70)
            return fail("I", rank);
    }
    MPI_Barrier(w);
    /* J */
    if (rank == 0) {
        v = 90;
        MPI_Sendrecv_replace(&v, 1, MPI_INT, 2, 9, 2, MPI_ANY_TAG, w, &st);
        if (v != 100 || st.MPI_TAG != 10)
            return fail("J", rank);
    } else if (rank == 2) {
        v = 100;
        MPI_Sendrecv_replace(&v, 1, MPI_INT, 0, 10, 0, 9, w, MPI_STATUS_IGNORE);
        if (v != 90)
            return fail("J", rank);
    }
    MPI_Barrier(w);
    /* K */
    if (rank == 0) {
        MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, w, &st);
        MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, w, MPI_STATUS_IGNORE);
        if (v != 2 || st.MPI_TAG != 11)
            return fail("K", rank);
    } else if (rank == 2) {
        MPI_Send(&rank, 1, MPI_INT, 0, 11, w);
    }
    MPI_Barrier(w);
    MPI_Finalize();
    if (rank == 0)
        printf("anysrc = OK\n");
    return 0;
}
