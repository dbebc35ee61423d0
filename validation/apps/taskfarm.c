/*
 * taskfarm — master/worker task farm with irregular tasks (needs np >= 2).
 *
 * Rank 0 is the master, ranks 1..np-1 are workers. The run is ITERS rounds; each round is a batch
 * of TPR = 32 tasks. The master first sends one task to every worker (MPI_Send, tag TASK), then
 * loops: MPI_Recv(MPI_ANY_SOURCE, tag RESULT) a result, checks its length with MPI_Get_count,
 * and answers the worker that sent it with the next task, or with a termination message (tag
 * DONE, no payload) when the round's tasks are all handed out. A worker loops MPI_Recv(from 0,
 * MPI_ANY_TAG) -> compute -> MPI_Send(result) until it receives DONE. Every round ends with an
 * MPI_Bcast from the master (the round's total and task count).
 *
 * A task integrates a cubic polynomial p over [a, b] with the composite Simpson rule on n
 * intervals (n = task size). Task parameters come from a fixed-seed 64-bit LCG (our own, not
 * rand()) keyed by the task's global number, so the tasks are the same in every run; n is spread
 * uniformly over [SIZE/4, 7 SIZE/4], so the tasks are irregular. Which worker gets which task
 * depends on the order results arrive (MPI_ANY_SOURCE); nothing else is non-deterministic.
 *
 *   usage: taskfarm [SIZE [ITERS]]   SIZE = mean task size (Simpson intervals), ITERS = rounds
 *   test size:       taskfarm 100000 4       (the defaults)
 *   validation size: taskfarm 4000000 18
 *
 * Verification (can fail; "verification = FAILED", exit status 1):
 *   1. Simpson's rule is exact for cubics, so the master checks every result against the
 *      closed-form integral it computes serially (relative 1e-9 of the task's scale), checks
 *      every task came back exactly once, and that the sum of all results equals the serially
 *      computed analytic sum.
 *   2. at the end an MPI_Reduce of the workers' own sums / task counts / received round totals
 *      must match what the master collected (the sum computed two ways, the count, and the
 *      broadcast totals as seen by every worker). The master broadcasts the verdict.
 *
 * MPI calls (normal path, np >= 2, W = np - 1 workers, T = TPR * ITERS tasks):
 *   every rank: MPI_Init 1, MPI_Comm_rank 1, MPI_Comm_size 1, MPI_Barrier 1, MPI_Wtime 2,
 *     MPI_Bcast ITERS + 1 (one per round, the verdict), MPI_Reduce 2 (checks, time), MPI_Finalize 1
 *   master: MPI_Send T + W*ITERS, MPI_Recv T, MPI_Get_count T
 *   worker w: MPI_Send t_w, MPI_Recv t_w + ITERS, with sum over workers of t_w = T
 *   (t_w depends on arrival order).
 */
#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"

#define APP "taskfarm"
#define DEF_SIZE 100000
#define DEF_ITERS 4
#define TPR 32
#define SEED 0x5DEECE66DULL

enum { TAG_TASK = 1, TAG_RESULT = 2, TAG_DONE = 3 };
enum { T_ID, T_N, T_A, T_B, T_C0, T_C1, T_C2, T_C3, T_LEN };

/* own 64-bit LCG (Knuth's MMIX constants); returns a double in [0, 1) */
static double lcg_next(uint64_t *x)
{
    *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*x >> 11) * (1.0 / 9007199254740992.0);
}

static void make_task(long id, long size, double t[T_LEN])
{
    uint64_t x = SEED ^ ((uint64_t)id * 0x9E3779B97F4A7C15ULL);
    for (int k = 0; k < 4; k++) /* decorrelate neighbouring ids */
        (void)lcg_next(&x);
    double un = lcg_next(&x);
    long n = 2 * (long)((double)size * (0.125 + 0.75 * un)) + 2; /* even, ~[SIZE/4, 7SIZE/4] */
    t[T_ID] = (double)id;
    t[T_N] = (double)n;
    t[T_A] = lcg_next(&x) - 0.5;
    t[T_B] = t[T_A] + 0.5 + lcg_next(&x);
    for (int k = 0; k < 4; k++)
        t[T_C0 + k] = 2.0 * lcg_next(&x) - 1.0;
}

static double poly(const double t[T_LEN], double x)
{
    return ((t[T_C3] * x + t[T_C2]) * x + t[T_C1]) * x + t[T_C0];
}

/* the work: composite Simpson rule on n intervals */
static double simpson(const double t[T_LEN])
{
    const long n = (long)t[T_N];
    const double a = t[T_A], b = t[T_B], h = (b - a) / (double)n;
    double odd = 0.0, even = 0.0;
    for (long i = 1; i < n; i += 2)
        odd += poly(t, a + (double)i * h);
    for (long i = 2; i < n; i += 2)
        even += poly(t, a + (double)i * h);
    return h / 3.0 * (poly(t, a) + poly(t, b) + 4.0 * odd + 2.0 * even);
}

/* closed form of the same integral, and a scale for the tolerance */
static double exact(const double t[T_LEN], double *scale)
{
    const double a = t[T_A], b = t[T_B];
    const double a2 = a * a, b2 = b * b, a3 = a2 * a, b3 = b2 * b, a4 = a3 * a, b4 = b3 * b;
    const double m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    *scale = (b - a) * (fabs(t[T_C0]) + fabs(t[T_C1]) * m + fabs(t[T_C2]) * m * m +
                        fabs(t[T_C3]) * m * m * m);
    return t[T_C0] * (b - a) + t[T_C1] * (b2 - a2) / 2.0 + t[T_C2] * (b3 - a3) / 3.0 +
           t[T_C3] * (b4 - a4) / 4.0;
}

int main(int argc, char **argv)
{
    int rank, np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);

    long size = DEF_SIZE, iters = DEF_ITERS;
    int bad = parse_size_iters(argc, argv, &size, 8, 1L << 40, &iters, 1, 10000000L);
    if (bad || np < 2) {
        if (rank == 0) {
            if (np < 2)
                fprintf(stderr, APP ": needs at least 2 MPI processes (1 master + workers)\n");
            else
                fprintf(stderr, "usage: " APP " [SIZE [ITERS]]  (SIZE: mean task size >= 8;"
                                " ITERS: rounds >= 1; defaults %d %d)\n", DEF_SIZE, DEF_ITERS);
        }
        MPI_Finalize();
        return 2;
    }
    const int nw = np - 1;
    const long ntasks = TPR * iters;
    unsigned char *seen = NULL;
    if (rank == 0) {
        seen = calloc((size_t)ntasks, 1);
        if (!seen) {
            fprintf(stderr, APP ": out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
    }

    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();

    int ok = 1;
    double recv_sum = 0.0, exact_sum = 0.0, bcast_seen = 0.0; /* master / every rank */
    double my_sum = 0.0, my_count = 0.0;                    /* worker */
    long bad_tasks = 0;
    for (long round = 0; round < iters; round++) {
        double info[2] = {0.0, 0.0}; /* round total, round task count */
        if (rank == 0) {
            long next = 0, outstanding = 0;
            double task[T_LEN] = {0};
            for (int w = 1; w <= nw; w++) {
                if (next < TPR) {
                    make_task(round * TPR + next, size, task);
                    MPI_Send(task, T_LEN, MPI_DOUBLE, w, TAG_TASK, MPI_COMM_WORLD);
                    next++;
                    outstanding++;
                } else {
                    MPI_Send(task, 0, MPI_DOUBLE, w, TAG_DONE, MPI_COMM_WORLD);
                }
            }
            while (outstanding > 0) {
                double res[2];
                MPI_Status st;
                int cnt = -1;
                MPI_Recv(res, 2, MPI_DOUBLE, MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &st);
                MPI_Get_count(&st, MPI_DOUBLE, &cnt);
                outstanding--;
                const int src = st.MPI_SOURCE;
                long id = (long)res[0];
                if (cnt != 2 || id < round * TPR || id >= (round + 1) * TPR || seen[id]) {
                    bad_tasks++;
                } else {
                    double t[T_LEN], scale;
                    seen[id] = 1;
                    make_task(id, size, t);
                    double ex = exact(t, &scale);
                    if (!(fabs(res[1] - ex) <= 1e-9 * scale))
                        bad_tasks++;
                    recv_sum += res[1];
                    info[0] += res[1];
                    info[1] += 1.0;
                }
                if (next < TPR) {
                    make_task(round * TPR + next, size, task);
                    MPI_Send(task, T_LEN, MPI_DOUBLE, src, TAG_TASK, MPI_COMM_WORLD);
                    next++;
                    outstanding++;
                } else {
                    MPI_Send(task, 0, MPI_DOUBLE, src, TAG_DONE, MPI_COMM_WORLD);
                }
            }
        } else {
            for (;;) {
                double task[T_LEN];
                MPI_Status st;
                MPI_Recv(task, T_LEN, MPI_DOUBLE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
                if (st.MPI_TAG == TAG_DONE)
                    break;
                double res[2] = {task[T_ID], simpson(task)};
                my_sum += res[1];
                my_count += 1.0;
                MPI_Send(res, 2, MPI_DOUBLE, 0, TAG_RESULT, MPI_COMM_WORLD);
            }
        }
        MPI_Bcast(info, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (rank != 0)
            bcast_seen += info[0];
    }

    /* ---- verification */
    double mine[3] = {my_sum, my_count, bcast_seen}, tot[3] = {0, 0, 0};
    MPI_Reduce(mine, tot, 3, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double scale_sum = 0.0;
        for (long id = 0; id < ntasks; id++) {
            double t[T_LEN], scale;
            make_task(id, size, t);
            exact_sum += exact(t, &scale);
            scale_sum += scale;
            if (!seen[id])
                bad_tasks++;
        }
        const double tol = 1e-9 * scale_sum;
        if (bad_tasks != 0) {
            fprintf(stderr, APP ": %ld tasks missing, duplicated or wrong\n", bad_tasks);
            ok = 0;
        }
        if (!(fabs(recv_sum - exact_sum) <= tol)) {
            fprintf(stderr, APP ": sum of results %.17g != analytic sum %.17g\n", recv_sum, exact_sum);
            ok = 0;
        }
        if (!(fabs(tot[0] - recv_sum) <= 1e-12 * scale_sum) || tot[1] != (double)ntasks) {
            fprintf(stderr, APP ": workers report %.0f tasks summing to %.17g, master got %.17g\n",
                    tot[1], tot[0], recv_sum);
            ok = 0;
        }
        if (!(fabs(tot[2] - (double)nw * recv_sum) <= 1e-12 * (double)nw * scale_sum)) {
            fprintf(stderr, APP ": broadcast round totals seen by workers: %.17g, expected %.17g\n",
                    tot[2], (double)nw * recv_sum);
            ok = 0;
        }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);

    double elapsed = MPI_Wtime() - t0, tmax = 0.0;
    MPI_Reduce(&elapsed, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        print_result(APP, np, tmax, ok);
    }
    free(seen);
    MPI_Finalize();
    return ok ? 0 : 1;
}
