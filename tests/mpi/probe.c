/* A test subject for the tracer: one run (np = 4) exercises the cases the tracer must get
 * right, in a fixed order that tests/check_probe.c verifies event by event.
 *   1. Comm_split even/odd, then a Send/Recv on the sub-communicator (world translation)
 *   2. ANY_SOURCE: blocking Recv on rank 0 from ranks 1..3
 *   3. Irecv(ANY_SOURCE) x3 on rank 0 completed by Waitany, and by Waitsome
 *   4. persistent Send_init/Recv_init + Startall + Waitall (ring), twice
 *   5. Cart_create 2x2, Cart_sub rows, Allreduce on the row, Comm_free
 *   6. Alltoallv with counts (rank+1) and Gatherv
 *   7. Iallreduce + Test loop, Sendrecv ring, Ssend/Probe
 * Every message carries a checked payload; the program exits 1 if MPI misbehaves. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int fail(const char *what, int rank)
{
    fprintf(stderr, "probe: rank %d: %s\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
}

int main(int argc, char **argv)
{
    int rank, np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np != 4)
        return fail("run me with -np 4", rank);

    /* 1. split: even = {0,2}, odd = {1,3}; local 0 sends to local 1 */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    int hrank, v = rank * 10;
    MPI_Comm_rank(half, &hrank);
    if (hrank == 0)
        MPI_Send(&v, 1, MPI_INT, 1, 7, half);
    else {
        MPI_Recv(&v, 1, MPI_INT, 0, 7, half, MPI_STATUS_IGNORE);
        if (v != (rank - 2) * 10)
            return fail("split message", rank);
    }

    /* 2. blocking ANY_SOURCE */
    if (rank == 0) {
        int sum = 0;
        for (int i = 1; i < np; i++) {
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            sum += v;
        }
        if (sum != 1 + 2 + 3)
            return fail("any-source sum", rank);
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 11, MPI_COMM_WORLD);
    }

    /* 3. Irecv(ANY_SOURCE) + Waitany, then + Waitsome */
    for (int round = 0; round < 2; round++) {
        if (rank == 0) {
            MPI_Request rq[3];
            int got[3], seen = 0;
            for (int i = 0; i < 3; i++)
                MPI_Irecv(&got[i], 1, MPI_INT, MPI_ANY_SOURCE, 20 + round, MPI_COMM_WORLD, &rq[i]);
            if (round == 0) {
                for (int k = 0; k < 3; k++) {
                    int idx;
                    MPI_Status st;
                    MPI_Waitany(3, rq, &idx, &st);
                    seen |= 1 << got[idx];
                }
            } else {
                int done = 0;
                while (done < 3) {
                    int outc, idx[3];
                    MPI_Status st[3];
                    MPI_Waitsome(3, rq, &outc, idx, st);
                    for (int k = 0; k < outc; k++)
                        seen |= 1 << got[idx[k]];
                    done += outc;
                }
            }
            if (seen != 0xe)
                return fail("Irecv any-source", rank);
        } else {
            MPI_Send(&rank, 1, MPI_INT, 0, 20 + round, MPI_COMM_WORLD);
        }
    }

    /* 4. persistent ring */
    {
        int out = rank, in = -1;
        MPI_Request pr[2];
        MPI_Send_init(&out, 1, MPI_INT, (rank + 1) % np, 30, MPI_COMM_WORLD, &pr[0]);
        MPI_Recv_init(&in, 1, MPI_INT, (rank + np - 1) % np, 30, MPI_COMM_WORLD, &pr[1]);
        for (int it = 0; it < 2; it++) {
            MPI_Startall(2, pr);
            MPI_Waitall(2, pr, MPI_STATUSES_IGNORE);
            if (in != (rank + np - 1) % np)
                return fail("persistent ring", rank);
        }
        MPI_Request_free(&pr[0]);
        MPI_Request_free(&pr[1]);
    }

    /* 5. Cartesian 2x2, rows */
    {
        int dims[2] = {2, 2}, periods[2] = {1, 0}, remain[2] = {0, 1}, s = 0;
        MPI_Comm cart, row;
        MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
        MPI_Cart_sub(cart, remain, &row);
        MPI_Allreduce(&rank, &s, 1, MPI_INT, MPI_SUM, row);
        if (s != (rank / 2) * 4 + 1)
            return fail("row allreduce", rank);
        MPI_Comm_free(&row);
        MPI_Comm_free(&cart);
    }

    /* 6. v-collectives */
    {
        int sc[4], sd[4], rc[4], rd[4], sbuf[16], rbuf[16], n = 0, m = 0;
        for (int i = 0; i < np; i++) {
            sc[i] = rank + 1; /* I send rank+1 ints to everybody */
            sd[i] = n;
            n += sc[i];
            rc[i] = i + 1;
            rd[i] = m;
            m += rc[i];
        }
        for (int i = 0; i < n; i++)
            sbuf[i] = rank;
        MPI_Alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, MPI_COMM_WORLD);
        for (int i = 0; i < np; i++)
            if (rbuf[rd[i]] != i)
                return fail("alltoallv", rank);
        MPI_Gatherv(sbuf, rank + 1, MPI_INT, rbuf, rc, rd, MPI_INT, 0, MPI_COMM_WORLD);
    }

    /* 7. non-blocking collective + Test loop; Sendrecv ring; Ssend + Probe */
    {
        int s = 0, flag = 0;
        MPI_Request r;
        MPI_Iallreduce(&rank, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
        while (!flag)
            MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
        if (s != 6)
            return fail("iallreduce", rank);
        int out = rank, in = -1;
        MPI_Sendrecv(&out, 1, MPI_INT, (rank + 1) % np, 40, &in, 1, MPI_INT, (rank + np - 1) % np, 40,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (in != (rank + np - 1) % np)
            return fail("sendrecv", rank);
        if (rank == 1)
            MPI_Ssend(&out, 1, MPI_INT, 0, 41, MPI_COMM_WORLD);
        if (rank == 0) {
            MPI_Status st;
            MPI_Probe(MPI_ANY_SOURCE, 41, MPI_COMM_WORLD, &st);
            MPI_Recv(&in, 1, MPI_INT, st.MPI_SOURCE, 41, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    MPI_Comm_free(&half);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    if (rank == 0)
        printf("probe = OK\n");
    return 0;
}
