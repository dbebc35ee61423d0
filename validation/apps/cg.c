/*
 * cg — conjugate-gradient solver for the 2-D Poisson problem (5-point Laplacian, zero Dirichlet
 * boundary) on an N x N grid, distributed by blocks of grid rows over MPI_COMM_WORLD.
 *
 * Pattern: SPMD, regular iterations, latency-sensitive. Each CG iteration: one sparse matvec
 * preceded by a halo-row exchange with the rank above and below (MPI_Sendrecv, even/odd ordered:
 * even ranks exchange with rank+1 first, odd ranks with rank-1 first), then two dot products,
 * each an MPI_Allreduce of one double. ITERS iterations are always performed (no early exit), so
 * the sequence of MPI calls is fixed; once converged the step sizes are guarded against 0/0.
 *
 *   usage: cg [N [ITERS]]     N = grid side (N*N unknowns), ITERS = CG iterations
 *   test size:       cg 64 600         (the defaults)
 *   validation size: cg 2560 100
 *
 * The exact solution x* is a fixed pseudo-random field; b = A x* is computed from the formula
 * for x* at global coordinates (no communication), so b does not depend on the exchange code.
 *
 * Verification (can fail; "verification = FAILED" and exit status 1):
 *   a. the true residual b - A x, computed with a second, independent halo path (MPI_Allgather
 *      of every rank's first and last row), agrees with CG's recurrence residual r:
 *      ||(b - A x) - r|| <= 1e-8 ||b||. A wrong or missing exchange in the matvec breaks this.
 *   b. the A-norm of the error obeys the CG bound
 *      ||x* - x||_A <= min(1, 2 rho^ITERS) ||x*||_A,  rho = (sqrt(k)-1)/(sqrt(k)+1),
 *      k = cot^2(pi / (2(N+1))) the exact condition number of the matrix.
 *   c. when the bound guarantees it (2 rho^ITERS sqrt(k) <= 1e-10, e.g. at the test size):
 *      ||x - x*|| <= 1e-8 ||x*||.
 *
 * MPI calls per rank (normal path): MPI_Init 1, MPI_Comm_rank 1, MPI_Comm_size 1,
 * MPI_Allreduce 2*ITERS + 2 (setup 1, loop 2 per iteration, verification 1), MPI_Sendrecv
 * nn*ITERS with nn = (rank > 0) + (rank < np-1), MPI_Allgather 1 (verification), MPI_Barrier 1,
 * MPI_Wtime 2, MPI_Reduce 1, MPI_Finalize 1. Per iteration: Sendrecv x nn, compute, Allreduce,
 * compute, Allreduce, compute.
 */
#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"

#define APP "cg"
#define DEF_N 64
#define DEF_ITERS 600
#define TAG_HALO 21

static const double PI = 3.14159265358979323846;

/* exact solution at global cell (i, j); 0 outside the grid (Dirichlet boundary).  row: the
 * row's factor sin(pi (i + 1) / (n + 1)) (xstar_row), computed once per row */
static double xstar_row(long i, long n)
{
    return sin(PI * (double)(i + 1) / (double)(n + 1));
}

static double xstar(long i, long j, long n, double row)
{
    if (i < 0 || j < 0 || i >= n || j >= n)
        return 0.0;
    uint64_t z = (uint64_t)(i * n + j) + 0x2545F4914F6CDD1DULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    double rnd = (double)(z >> 11) * (1.0 / 9007199254740992.0);
    return row * (1.0 + (double)j / (double)n) + rnd - 0.5;
}

/* q = A p for nr local rows; pe holds nr+2 rows (halo row above at 0, below at nr+1) */
static void matvec(const double *restrict pe, double *restrict q, int nr, int n)
{
    for (int i = 0; i < nr; i++) {
        const double *pu = pe + (size_t)i * (size_t)n, *pc = pu + n, *pd = pc + n;
        double *qi = q + (size_t)i * (size_t)n;
        if (n == 1) {
            qi[0] = 4.0 * pc[0] - pu[0] - pd[0];
            continue;
        }
        qi[0] = 4.0 * pc[0] - pu[0] - pd[0] - pc[1];
        for (int j = 1; j < n - 1; j++)
            qi[j] = 4.0 * pc[j] - pu[j] - pd[j] - pc[j - 1] - pc[j + 1];
        qi[n - 1] = 4.0 * pc[n - 1] - pu[n - 1] - pd[n - 1] - pc[n - 2];
    }
}

static double dot(const double *a, const double *b, size_t len)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t k = 0;
    for (; k + 4 <= len; k += 4) {
        s0 += a[k] * b[k];
        s1 += a[k + 1] * b[k + 1];
        s2 += a[k + 2] * b[k + 2];
        s3 += a[k + 3] * b[k + 3];
    }
    for (; k < len; k++)
        s0 += a[k] * b[k];
    return (s0 + s1) + (s2 + s3);
}

/* fill the halo rows of pe (nr+2 rows) from the neighbours with MPI_Sendrecv */
static void exchange(double *pe, int nr, int n, int rank, int np)
{
    int partner[2];
    partner[0] = rank % 2 == 0 ? rank + 1 : rank - 1;
    partner[1] = rank % 2 == 0 ? rank - 1 : rank + 1;
    for (int k = 0; k < 2; k++) {
        int p = partner[k];
        if (p < 0 || p >= np)
            continue;
        if (p == rank + 1)
            MPI_Sendrecv(pe + (size_t)nr * (size_t)n, n, MPI_DOUBLE, p, TAG_HALO,
                         pe + (size_t)(nr + 1) * (size_t)n, n, MPI_DOUBLE, p, TAG_HALO,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else
            MPI_Sendrecv(pe + n, n, MPI_DOUBLE, p, TAG_HALO, pe, n, MPI_DOUBLE, p, TAG_HALO,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

int main(int argc, char **argv)
{
    int rank, np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);

    long n = DEF_N, iters = DEF_ITERS;
    int bad = parse_size_iters(argc, argv, &n, 2, 1L << 16, &iters, 1, 100000000L);
    if (!bad && n < np)
        bad = 1;
    if (bad) {
        if (rank == 0)
            fprintf(stderr, "usage: " APP " [N [ITERS]]  (N: grid side, %d..65536; ITERS >= 1;"
                            " defaults %d %d)\n", np > 2 ? np : 2, DEF_N, DEF_ITERS);
        MPI_Finalize();
        return 2;
    }

    const int r0 = bstart(rank, (int)n, np), nr = bstart(rank + 1, (int)n, np) - r0;
    const size_t len = (size_t)nr * (size_t)n, elen = len + 2 * (size_t)n;
    double *x = calloc(len, sizeof(double)), *r = malloc(len * sizeof(double));
    double *q = malloc(len * sizeof(double)), *b = malloc(len * sizeof(double));
    double *xs = malloc(len * sizeof(double)), *pe = calloc(elen, sizeof(double));
    double *edges = malloc(2 * (size_t)np * (size_t)n * sizeof(double));
    if (!x || !r || !q || !b || !xs || !pe || !edges) {
        fprintf(stderr, APP ": rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    double *p = pe + n; /* the owned rows of the search direction */

    /* x* on the owned rows and the two beside them (in pe for now), each cell once and its
     * row's sine once per row; b = A x* by the matvec, the same sum in the same order as the
     * 5-point formula (evaluating x*, sine included, five times per cell made the set-up
     * cost ~25 iterations of a 500-iteration run) */
    for (int i = -1; i <= nr; i++) {
        double row = xstar_row(r0 + i, n);
        for (long j = 0; j < n; j++)
            pe[(size_t)(i + 1) * (size_t)n + (size_t)j] = xstar(r0 + i, j, n, row);
    }
    matvec(pe, b, nr, (int)n);
    memcpy(xs, p, len * sizeof(double));
    memset(pe, 0, elen * sizeof(double));
    /* x = 0, r = b, p = r */
    memcpy(r, b, len * sizeof(double));
    memcpy(p, r, len * sizeof(double));
    double lrr = dot(r, r, len), rr;
    MPI_Allreduce(&lrr, &rr, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();

    for (long it = 0; it < iters; it++) {
        exchange(pe, nr, (int)n, rank, np);
        matvec(pe, q, nr, (int)n);
        double lpq = dot(p, q, len), pq;
        MPI_Allreduce(&lpq, &pq, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        double alpha = pq > 0.0 ? rr / pq : 0.0;
        for (size_t k = 0; k < len; k++) {
            x[k] += alpha * p[k];
            r[k] -= alpha * q[k];
        }
        double lrn = dot(r, r, len), rn;
        MPI_Allreduce(&lrn, &rn, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        double beta = rr > 0.0 ? rn / rr : 0.0;
        for (size_t k = 0; k < len; k++)
            p[k] = r[k] + beta * p[k];
        rr = rn;
    }

    /* ---- verification: true residual with halos from an MPI_Allgather of edge rows */
    memcpy(p, x, len * sizeof(double));
    double *myedge = malloc(2 * (size_t)n * sizeof(double));
    if (!myedge)
        MPI_Abort(MPI_COMM_WORLD, 3);
    memcpy(myedge, x, (size_t)n * sizeof(double));
    memcpy(myedge + n, x + len - (size_t)n, (size_t)n * sizeof(double));
    MPI_Allgather(myedge, 2 * (int)n, MPI_DOUBLE, edges, 2 * (int)n, MPI_DOUBLE, MPI_COMM_WORLD);
    free(myedge);
    if (rank > 0) /* last row of rank-1 */
        memcpy(pe, edges + (size_t)(2 * (rank - 1) + 1) * (size_t)n, (size_t)n * sizeof(double));
    else
        memset(pe, 0, (size_t)n * sizeof(double));
    if (rank < np - 1) /* first row of rank+1 */
        memcpy(pe + len + (size_t)n, edges + (size_t)(2 * (rank + 1)) * (size_t)n,
               (size_t)n * sizeof(double));
    else
        memset(pe + len + (size_t)n, 0, (size_t)n * sizeof(double));
    matvec(pe, q, nr, (int)n);
    double loc[6] = {0, 0, 0, 0, 0, 0}, glob[6];
    for (size_t k = 0; k < len; k++) {
        double rt = b[k] - q[k], e = xs[k] - x[k];
        loc[0] += (rt - r[k]) * (rt - r[k]); /* ||r_true - r_rec||^2 */
        loc[1] += e * rt;                    /* ||e||_A^2 = e.(A e) = e.(b - A x) */
        loc[2] += b[k] * b[k];               /* ||b||^2 */
        loc[3] += e * e;                     /* ||e||^2 */
        loc[4] += xs[k] * xs[k];             /* ||x*||^2 */
        loc[5] += xs[k] * b[k];              /* ||x*||_A^2 = ||e_0||_A^2 */
    }
    MPI_Allreduce(loc, glob, 6, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

    int ok = 1;
    const double cot = 1.0 / tan(PI / (2.0 * (double)(n + 1)));
    const double rho = (cot - 1.0) / (cot + 1.0);
    const double bound = 2.0 * pow(rho, (double)iters);
    const double eA = sqrt(fabs(glob[1])), eA0 = sqrt(glob[5]);
    if (!(sqrt(glob[0]) <= 1e-8 * sqrt(glob[2]))) {
        if (rank == 0)
            fprintf(stderr, APP ": true residual differs from recurrence: %.3e (||b|| = %.3e)\n",
                    sqrt(glob[0]), sqrt(glob[2]));
        ok = 0;
    }
    if (!(glob[1] >= -1e-12 * glob[5]) ||
        !(eA <= (bound < 1.0 ? bound : 1.0) * (1.0 + 1e-6) * eA0)) {
        if (rank == 0)
            fprintf(stderr, APP ": A-norm error %.6e above bound %.6e\n", eA,
                    (bound < 1.0 ? bound : 1.0) * eA0);
        ok = 0;
    }
    if (bound * cot <= 1e-10 && !(sqrt(glob[3]) <= 1e-8 * sqrt(glob[4]))) {
        if (rank == 0)
            fprintf(stderr, APP ": not converged: ||x - x*|| / ||x*|| = %.3e\n",
                    sqrt(glob[3] / glob[4]));
        ok = 0;
    }

    double elapsed = MPI_Wtime() - t0, tmax = 0.0;
    MPI_Reduce(&elapsed, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        print_result(APP, np, tmax, ok);
    }
    free(x);
    free(r);
    free(q);
    free(b);
    free(xs);
    free(pe);
    free(edges);
    MPI_Finalize();
    return ok ? 0 : 1;
}
