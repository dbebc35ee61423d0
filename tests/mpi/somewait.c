/* somewait N [COLL [VARIANT]]: a ring exchange whose completions arrive in a different
 * order and number in every run.  Each of N iterations has three sections, each posting K
 * receives from each neighbour and K sends to each (tags per message), the sends spread
 * out by jittered computation, so that which requests are complete when the rank looks
 * differs from call to call and from run to run:
 *   A  completed by MPI_Waitsome in a loop while requests are outstanding (1 to 4K calls,
 *      each completing a varying number);
 *   B  completed by MPI_Testsome polling (calls completing 0, 1 or more);
 *   C  completed by MPI_Waitany, 4K calls in a varying order.
 * Each completed receive is checked (its tag and payload), so the program verifies itself.
 * COLL > 0: an MPI_Allreduce on MPI_COMM_WORLD every COLL iterations (0: point-to-point
 * only, the prediction stops by the guaranteed stop).  VARIANT changes the calls, for the
 * divergence checks: 1 section A completes with MPI_Waitall (another call); 2 section A
 * runs on a duplicate of MPI_COMM_WORLD (another communicator); 3 section A's first
 * message goes to and comes from MPI_PROC_NULL (another peer set). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "spin_for.h"

enum { K = 3, NREQ = 4 * K };

static unsigned rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fff;
}

/* a jittered piece of work: 10 to 80 us */
static void work(unsigned *s)
{
    spin_for(1e-5 * (double)(1 + rnd(s) % 8));
}

typedef struct {
    int buf[NREQ], out[NREQ];
    MPI_Request q[NREQ];
    int src[NREQ], tag[NREQ];
} exch_t;

/* posts K receives from each neighbour and K sends to each, with work between the sends */
static void post(exch_t *x, int it, int sec, int left, int right, MPI_Comm comm, int nullpeer,
                 unsigned *s)
{
    int n = 0;
    for (int k = 0; k < K; k++) {
        int nb[2] = {left, right};
        for (int d = 0; d < 2; d++, n++) {
            x->src[n] = nullpeer && n == 0 ? MPI_PROC_NULL : nb[d];
            x->tag[n] = 100 * sec + 2 * k + d;
            x->buf[n] = -1;
            MPI_Irecv(&x->buf[n], 1, MPI_INT, x->src[n], x->tag[n], comm, &x->q[n]);
        }
    }
    for (int k = 0; k < K; k++) {
        int nb[2] = {right, left}; /* the right neighbour's tag d=0 comes from its left */
        for (int d = 0; d < 2; d++, n++) {
            x->out[n] = it * 1000 + sec * 100 + 2 * k + d;
            x->src[n] = -1;
            MPI_Isend(&x->out[n], 1, MPI_INT, nullpeer && n == 2 * K ? MPI_PROC_NULL : nb[d],
                      100 * sec + 2 * k + d, comm, &x->q[n]);
            work(s);
        }
    }
}

/* request i is complete: a receive must hold what its peer sent */
static void done(const exch_t *x, int i, int it, int sec, int *bad)
{
    if (i < 0 || i >= NREQ) {
        (*bad)++;
        return;
    }
    if (x->src[i] == MPI_PROC_NULL || x->src[i] < 0)
        return;
    if (x->buf[i] != it * 1000 + sec * 100 + (x->tag[i] - 100 * sec))
        (*bad)++;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int n = argc > 1 ? atoi(argv[1]) : 200, coll = argc > 2 ? atoi(argv[2]) : 0,
        variant = argc > 3 ? atoi(argv[3]) : 0;
    int left = (r + np - 1) % np, right = (r + 1) % np, bad = 0;
    unsigned seed = (unsigned)time(NULL) * 2654435761u ^ (unsigned)getpid() ^ (unsigned)r << 20;
    MPI_Comm dup, acomm;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup); /* made in every variant: only its use differs */
    acomm = variant == 2 ? dup : MPI_COMM_WORLD;
    long calls[3] = {0, 0, 0}, empty = 0;
    exch_t x;
    for (int it = 0; it < n; it++) {
        /* A: Waitsome until nothing is outstanding */
        post(&x, it, 1, left, right, acomm, variant == 3, &seed);
        if (variant == 1) {
            MPI_Waitall(NREQ, x.q, MPI_STATUSES_IGNORE);
            for (int i = 0; i < NREQ; i++)
                done(&x, i, it, 1, &bad);
        } else {
            for (int left_ = NREQ; left_ > 0;) {
                int idx[NREQ], m;
                MPI_Waitsome(NREQ, x.q, &m, idx, MPI_STATUSES_IGNORE);
                calls[0]++;
                for (int j = 0; j < m; j++) {
                    done(&x, idx[j], it, 1, &bad);
                    work(&seed);
                }
                left_ -= m;
            }
        }
        /* B: Testsome polling */
        post(&x, it, 2, left, right, MPI_COMM_WORLD, 0, &seed);
        for (int left_ = NREQ; left_ > 0;) {
            int idx[NREQ], m;
            MPI_Testsome(NREQ, x.q, &m, idx, MPI_STATUSES_IGNORE);
            calls[1]++;
            empty += m == 0;
            for (int j = 0; j < m; j++)
                done(&x, idx[j], it, 2, &bad);
            left_ -= m;
            work(&seed);
        }
        /* C: Waitany, one completion per call in whatever order they come */
        post(&x, it, 3, left, right, MPI_COMM_WORLD, 0, &seed);
        for (int j = 0; j < NREQ; j++) {
            int i;
            MPI_Waitany(NREQ, x.q, &i, MPI_STATUS_IGNORE);
            calls[2]++;
            done(&x, i, it, 3, &bad);
            work(&seed);
        }
        if (coll > 0 && (it + 1) % coll == 0) {
            int b = bad, all;
            MPI_Allreduce(&b, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            if (all) {
                if (!r)
                    fprintf(stderr, "somewait: %d wrong messages by iteration %d\n", all, it);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        }
    }
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_free(&dup);
    if (!r) {
        if (all)
            fprintf(stderr, "somewait: %d wrong messages\n", all);
        else
            printf("somewait: done (rank 0: %ld Waitsome, %ld Testsome of which %ld empty, "
                   "%ld Waitany calls)\n", calls[0], calls[1], empty, calls[2]);
    }
    MPI_Finalize();
    return all ? 1 : 0;
}
