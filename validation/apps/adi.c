/*
 * adi — ADI-style implicit diffusion in 3-D on a 3-D block decomposition, point-to-point only.
 *
 * Pattern: NAS SP/BT-like line solves. Each iteration solves, one direction after the other,
 *   (I - a d2/dx2) u* = u,   (I - a d2/dy2) u** = u*,   (I - a d2/dz2) u' = u**
 * with the Thomas algorithm on every grid line. A line crosses the P ranks of its direction, so
 * every solve is a pipeline: the forward elimination runs from the first rank of the line to the
 * last, each rank forwarding the eliminated values of its last plane to the next rank; the back
 * substitution runs the other way, forwarding the solution of the first plane to the previous
 * rank. The plane a rank forwards is cut into NB = 4 chunks, so the next rank starts on chunk 0
 * while this one eliminates chunk 1 (the pipelining). All receives of a half-sweep are posted
 * first (MPI_Irecv), each is completed by MPI_Waitall(1) just before its chunk is computed, the
 * chunks go out by MPI_Isend, and one MPI_Waitall completes the sends at the end of the
 * half-sweep. The main loop has NO collective: the only collectives are in the setup and in the
 * final verification.
 *
 *   usage: adi [N [ITERS]]     N = cells per side (N^3 cells), ITERS = ADI iterations
 *   test size:       adi 24 10         (the defaults)
 *   validation size: adi 192 40
 *
 * Decomposition: MPI_Dims_create(np, 3) -> P0 x P1 x P2 (x, y, z), ranks are plain
 * MPI_COMM_WORLD ranks, rank = (p0 * P1 + p1) * P2 + p2, blocks by bstart() (remainders to the
 * first blocks); N must be >= P0 (the largest). np=2: 2x1x1 (only x is a pipeline); np=4: 2x2x1;
 * np=8: 2x2x2. The boundary is insulated (Neumann: the first and last row of each line's matrix
 * is (1+a, -a) and (-a, 1+a)), so every column of the matrix sums to 1 and each solve conserves
 * sum(u) exactly up to rounding; the matrix is an M-matrix with unit row sums, so its inverse
 * averages: max(u) never increases and min(u) never decreases.
 *
 * Verification (can fail; any failure -> "verification = FAILED", exit status 1):
 *   1. conservation: |sum(u_final) - sum(u_initial)| <= 1e-11 * sum(u_initial). A wrong, stale or
 *      lost pipeline value breaks it.
 *   2. maximum principle: max(u_final) <= max(u_initial) and min(u_final) >= min(u_initial).
 *   3. small problems only (N^3 * ITERS <= 2e6): every rank reruns the whole problem serially and
 *      compares each cell of its block (relative 1e-13; the values are in fact bitwise equal: the
 *      elimination does the same operations in the same order whatever the decomposition). One
 *      forwarded value off by 1e-9 in one iteration is caught here.
 *
 * MPI calls, per rank, normal path. For direction d let up_d = 1 if this rank has a previous
 * rank along d (p_d > 0), dn_d = 1 if it has a next one (p_d < P_d - 1), NB = 4. Per iteration
 * and direction (x, then y, then z):
 *   forward:  MPI_Irecv NB*up_d (from previous), then per chunk: MPI_Waitall(1) if up_d,
 *             compute, MPI_Isend if dn_d (to next); then MPI_Waitall(NB) if dn_d
 *   backward: MPI_Irecv NB*dn_d (from next), then per chunk: MPI_Waitall(1) if dn_d,
 *             compute, MPI_Isend if up_d (to previous); then MPI_Waitall(NB) if up_d
 * so per iteration: Irecv = Isend = NB * sum_d (up_d + dn_d), Waitall = (NB + 1) * sum_d (up_d + dn_d).
 * Message size: one chunk of the plane perpendicular to d, in doubles. Outside the loop:
 *   MPI_Init 1, MPI_Comm_rank 1, MPI_Comm_size 1, MPI_Dims_create 1,
 *   MPI_Allreduce 4 (setup: initial sum, initial max/-min; verification: final sum,
 *   final max/-min; then 1 more: the ok flag, MIN) = 5 in all, MPI_Barrier 1, MPI_Wtime 2,
 *   MPI_Reduce 1 (elapsed time, MAX), MPI_Finalize 1.
 * Bad arguments: rank 0 prints one usage line on stderr; every rank calls MPI_Finalize, exit 2.
 */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"

#define APP "adi"
#define DEF_N 24
#define DEF_ITERS 10
#define NB 4        /* chunks per forwarded plane: the pipeline depth */
#define ALPHA 0.8   /* a = diffusion number per direction */

enum { TAG_FWD = 100, TAG_BWD = 200 }; /* + 10 * direction + chunk */

static double init_value(long gi, long gj, long gk, long n)
{
    uint64_t z = (uint64_t)((gi * n + gj) * n + gk) + 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

/* the Thomas coefficients of the n x n Neumann line matrix, by global index:
 * cp[i] = c'_i, im[i] = 1 / (b_i - a c'_{i-1}) with the sub/super diagonals -a */
static void thomas_coeffs(int n, double *cp, double *im)
{
    const double a = ALPHA;
    for (int i = 0; i < n; i++) {
        double b = (i == 0 || i == n - 1) ? 1.0 + a : 1.0 + 2.0 * a;
        if (n == 1)
            b = 1.0;
        double m = i == 0 ? b : b + a * cp[i - 1];
        im[i] = 1.0 / m;
        cp[i] = -a / m;
    }
}

/*
 * A local block is nx x ny x nz, index (i*ny + j)*nz + k. For a sweep along direction d the
 * block is seen as L planes (the local extent along d) of Q = product of the two others, plane
 * p holding Q cells at base(p) + off(q): for x, off(q) = q (contiguous planes of ny*nz); for y,
 * plane j, q = (i, k); for z, plane k, q = (i, j). The chunk c of a plane is q in
 * [bstart(c, Q, NB), bstart(c+1, Q, NB)).
 */
typedef struct {
    int d;           /* 0 = x, 1 = y, 2 = z */
    int L, Q;        /* planes, cells per plane */
    int g0;          /* global index of the first local plane */
    int nx, ny, nz;
} sweep_t;

/* offset of cell q of plane p (directions x and y), and in *len the number of cells from q on
 * (at most q1 - q) that follow it contiguously in memory */
static inline size_t seg(const sweep_t *s, int p, int q, int q1, int *len)
{
    if (s->d == 0) {
        *len = q1 - q;
        return (size_t)p * (size_t)s->ny * (size_t)s->nz + (size_t)q;
    }
    int i = q / s->nz, k = q % s->nz; /* d == 1: q = (i, k) */
    *len = s->nz - k < q1 - q ? s->nz - k : q1 - q;
    return ((size_t)i * (size_t)s->ny + (size_t)p) * (size_t)s->nz + (size_t)k;
}

/* forward elimination of chunk [q0, q1) in place: u <- d'; prev = d' of the previous rank's
 * last plane (NULL on the first rank of the line); out = this rank's last plane (NULL if last) */
static void fwd_chunk(const sweep_t *s, double *restrict u, const double *im, int q0, int q1,
                      const double *restrict prev, double *restrict out)
{
    const double a = ALPHA;
    if (s->d == 2) { /* contiguous lines: one line at a time */
        for (int q = q0; q < q1; q++) {
            double *line = u + (size_t)q * (size_t)s->nz;
            double dp = prev ? prev[q - q0] : 0.0;
            for (int p = 0; p < s->L; p++) {
                int g = s->g0 + p;
                dp = (g == 0 ? line[p] : line[p] + a * dp) * im[g];
                line[p] = dp;
            }
            if (out)
                out[q - q0] = dp;
        }
        return;
    }
    const size_t pstride = s->d == 0 ? (size_t)s->ny * (size_t)s->nz : (size_t)s->nz;
    for (int p = 0; p < s->L; p++) { /* plane by plane: the inner loop runs along memory */
        const int g = s->g0 + p;
        const double m = im[g];
        int len;
        for (int q = q0; q < q1; q += len) {
            double *c = u + seg(s, p, q, q1, &len);
            if (g == 0)
                for (int t = 0; t < len; t++)
                    c[t] *= m;
            else if (p > 0) {
                const double *b = c - pstride;
                for (int t = 0; t < len; t++)
                    c[t] = (c[t] + a * b[t]) * m;
            } else {
                const double *b = prev + (q - q0);
                for (int t = 0; t < len; t++)
                    c[t] = (c[t] + a * b[t]) * m;
            }
        }
    }
    if (out) {
        int len;
        for (int q = q0; q < q1; q += len) {
            const double *c = u + seg(s, s->L - 1, q, q1, &len);
            memcpy(out + (q - q0), c, (size_t)len * sizeof(double));
        }
    }
}

/* back substitution of chunk [q0, q1) in place: u <- x; next = x of the next rank's first plane
 * (NULL on the last rank of the line); out = this rank's first plane (NULL if first) */
static void bwd_chunk(const sweep_t *s, double *restrict u, const double *cp, int q0, int q1,
                      const double *restrict next, double *restrict out)
{
    if (s->d == 2) {
        for (int q = q0; q < q1; q++) {
            double *line = u + (size_t)q * (size_t)s->nz;
            double x = next ? next[q - q0] : 0.0;
            for (int p = s->L - 1; p >= 0; p--) {
                x = line[p] - cp[s->g0 + p] * x; /* x = 0 past the line's last cell */
                line[p] = x;
            }
            if (out)
                out[q - q0] = x;
        }
        return;
    }
    const size_t pstride = s->d == 0 ? (size_t)s->ny * (size_t)s->nz : (size_t)s->nz;
    for (int p = s->L - 1; p >= 0; p--) {
        const double c_g = cp[s->g0 + p];
        int len;
        for (int q = q0; q < q1; q += len) {
            double *c = u + seg(s, p, q, q1, &len);
            if (p < s->L - 1) {
                const double *b = c + pstride;
                for (int t = 0; t < len; t++)
                    c[t] -= c_g * b[t];
            } else if (next) {
                const double *b = next + (q - q0);
                for (int t = 0; t < len; t++)
                    c[t] -= c_g * b[t];
            }
        }
    }
    if (out) {
        int len;
        for (int q = q0; q < q1; q += len) {
            const double *c = u + seg(s, 0, q, q1, &len);
            memcpy(out + (q - q0), c, (size_t)len * sizeof(double));
        }
    }
}

/* one pipelined solve along s->d; prv/nxt = neighbour ranks along d (-1 if none); bufs holds
 * 4 * Q doubles (receive and send planes of both half-sweeps) */
static void solve_dir(const sweep_t *s, double *u, const double *cp, const double *im, int prv,
                      int nxt, double *bufs)
{
    double *rin = bufs, *sout = bufs + s->Q;
    MPI_Request rr[NB], sr[NB];
    /* forward: from previous to next */
    if (prv >= 0)
        for (int c = 0; c < NB; c++) {
            int q0 = bstart(c, s->Q, NB), q1 = bstart(c + 1, s->Q, NB);
            MPI_Irecv(rin + q0, q1 - q0, MPI_DOUBLE, prv, TAG_FWD + 10 * s->d + c, MPI_COMM_WORLD,
                      &rr[c]);
        }
    for (int c = 0; c < NB; c++) {
        int q0 = bstart(c, s->Q, NB), q1 = bstart(c + 1, s->Q, NB);
        if (prv >= 0)
            MPI_Waitall(1, &rr[c], MPI_STATUSES_IGNORE);
        fwd_chunk(s, u, im, q0, q1, prv >= 0 ? rin + q0 : NULL, nxt >= 0 ? sout + q0 : NULL);
        if (nxt >= 0)
            MPI_Isend(sout + q0, q1 - q0, MPI_DOUBLE, nxt, TAG_FWD + 10 * s->d + c, MPI_COMM_WORLD,
                      &sr[c]);
    }
    if (nxt >= 0)
        MPI_Waitall(NB, sr, MPI_STATUSES_IGNORE);
    /* backward: from next to previous */
    rin = bufs + 2 * (size_t)s->Q;
    sout = bufs + 3 * (size_t)s->Q;
    if (nxt >= 0)
        for (int c = 0; c < NB; c++) {
            int q0 = bstart(c, s->Q, NB), q1 = bstart(c + 1, s->Q, NB);
            MPI_Irecv(rin + q0, q1 - q0, MPI_DOUBLE, nxt, TAG_BWD + 10 * s->d + c, MPI_COMM_WORLD,
                      &rr[c]);
        }
    for (int c = 0; c < NB; c++) {
        int q0 = bstart(c, s->Q, NB), q1 = bstart(c + 1, s->Q, NB);
        if (nxt >= 0)
            MPI_Waitall(1, &rr[c], MPI_STATUSES_IGNORE);
        bwd_chunk(s, u, cp, q0, q1, nxt >= 0 ? rin + q0 : NULL, prv >= 0 ? sout + q0 : NULL);
        if (prv >= 0)
            MPI_Isend(sout + q0, q1 - q0, MPI_DOUBLE, prv, TAG_BWD + 10 * s->d + c, MPI_COMM_WORLD,
                      &sr[c]);
    }
    if (prv >= 0)
        MPI_Waitall(NB, sr, MPI_STATUSES_IGNORE);
}

static void make_sweep(sweep_t *s, int d, int nx, int ny, int nz, const int g0[3])
{
    const int ext[3] = {nx, ny, nz};
    s->d = d;
    s->nx = nx;
    s->ny = ny;
    s->nz = nz;
    s->L = ext[d];
    s->Q = (nx * ny * nz) / ext[d];
    s->g0 = g0[d];
}

/* local sum, and mm[0] = max, mm[1] = -min */
static void stats(const double *u, int nx, int ny, int nz, double *sum, double mm[2])
{
    double s = 0.0, mx = -INFINITY, mn = INFINITY;
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < ny; j++)
            for (int k = 0; k < nz; k++) {
                double x = u[((size_t)i * (size_t)ny + (size_t)j) * (size_t)nz + (size_t)k];
                s += x;
                mx = x > mx ? x : mx;
                mn = x < mn ? x : mn;
            }
    *sum = s;
    mm[0] = mx;
    mm[1] = -mn;
}

static void fill(double *u, int nx, int ny, int nz, const int g0[3], long n)
{
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < ny; j++)
            for (int k = 0; k < nz; k++)
                u[((size_t)i * (size_t)ny + (size_t)j) * (size_t)nz + (size_t)k] =
                    init_value(g0[0] + i, g0[1] + j, g0[2] + k, n);
}

static int close_rel(double a, double b, double tol)
{
    double scale = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    return fabs(a - b) <= tol * (scale > 1e-300 ? scale : 1e-300);
}

/* every rank, small problems only: the whole problem on one block, then this rank's block
 * compared cell by cell (the values must agree to rounding: the same operations in the same
 * order); 1 when they agree */
static int serial_check(int n, long iters, const double *cp, const double *im, const double *ub,
                        const int g0[3], const int ext[3], int rank)
{
    size_t cells = (size_t)n * (size_t)n * (size_t)n;
    double *u = malloc(cells * sizeof(double));
    double *bufs = malloc(4 * (size_t)n * (size_t)n * sizeof(double));
    if (!u || !bufs) {
        free(u);
        free(bufs);
        fprintf(stderr, APP ": serial check: out of memory\n");
        return 0;
    }
    const int z0[3] = {0, 0, 0};
    fill(u, n, n, n, z0, n);
    for (long it = 0; it < iters; it++)
        for (int d = 0; d < 3; d++) {
            sweep_t s;
            make_sweep(&s, d, n, n, n, z0);
            solve_dir(&s, u, cp, im, -1, -1, bufs);
        }
    int ok = 1;
    for (int i = 0; i < ext[0] && ok; i++)
        for (int j = 0; j < ext[1] && ok; j++)
            for (int k = 0; k < ext[2] && ok; k++) {
                double a = ub[((size_t)i * (size_t)ext[1] + (size_t)j) * (size_t)ext[2] + (size_t)k];
                double b = u[((size_t)(g0[0] + i) * (size_t)n + (size_t)(g0[1] + j)) * (size_t)n +
                             (size_t)(g0[2] + k)];
                if (!close_rel(a, b, 1e-13)) {
                    fprintf(stderr, APP ": rank %d: cell (%d,%d,%d) is %.17g, serial %.17g\n", rank,
                            g0[0] + i, g0[1] + j, g0[2] + k, a, b);
                    ok = 0;
                }
            }
    free(u);
    free(bufs);
    return ok;
}

int main(int argc, char **argv)
{
    int rank, np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);

    long n = DEF_N, iters = DEF_ITERS;
    int bad = parse_size_iters(argc, argv, &n, 2, 2048, &iters, 1, 100000000L);
    int dims[3] = {0, 0, 0};
    MPI_Dims_create(np, 3, dims);
    if (!bad && n < dims[0])
        bad = 1;
    if (bad) {
        if (rank == 0)
            fprintf(stderr, "usage: " APP " [N [ITERS]]  (N: cells per side, %d..2048; ITERS >= 1;"
                            " defaults %d %d)\n", dims[0] > 2 ? dims[0] : 2, DEF_N, DEF_ITERS);
        MPI_Finalize();
        return 2;
    }

    const int p[3] = {rank / (dims[1] * dims[2]), (rank / dims[2]) % dims[1], rank % dims[2]};
    const int stride[3] = {dims[1] * dims[2], dims[2], 1};
    int g0[3], ext[3], prv[3], nxt[3];
    for (int d = 0; d < 3; d++) {
        g0[d] = bstart(p[d], (int)n, dims[d]);
        ext[d] = bstart(p[d] + 1, (int)n, dims[d]) - g0[d];
        prv[d] = p[d] > 0 ? rank - stride[d] : -1;
        nxt[d] = p[d] < dims[d] - 1 ? rank + stride[d] : -1;
    }
    const int nx = ext[0], ny = ext[1], nz = ext[2];
    const size_t cells = (size_t)nx * (size_t)ny * (size_t)nz;
    int qmax = 0;
    for (int d = 0; d < 3; d++)
        if ((int)(cells / (size_t)ext[d]) > qmax)
            qmax = (int)(cells / (size_t)ext[d]);

    double *u = malloc(cells * sizeof(double));
    double *bufs = malloc(4 * (size_t)qmax * sizeof(double));
    double *cp = malloc((size_t)n * sizeof(double)), *im = malloc((size_t)n * sizeof(double));
    if (!u || !bufs || !cp || !im) {
        fprintf(stderr, APP ": rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    thomas_coeffs((int)n, cp, im);
    fill(u, nx, ny, nz, g0, n);
    double loc0, mm0_loc[2], heat0, mm0[2];
    stats(u, nx, ny, nz, &loc0, mm0_loc);
    MPI_Allreduce(&loc0, &heat0, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(mm0_loc, mm0, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();

    for (long it = 0; it < iters; it++)
        for (int d = 0; d < 3; d++) {
            sweep_t s;
            make_sweep(&s, d, nx, ny, nz, g0);
            solve_dir(&s, u, cp, im, prv[d], nxt[d], bufs);
        }

    /* ---- verification */
    int ok = 1;
    double loc, heat, mm_loc[2], mm[2];
    stats(u, nx, ny, nz, &loc, mm_loc);
    MPI_Allreduce(&loc, &heat, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(mm_loc, mm, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (!(fabs(heat - heat0) <= 1e-11 * fabs(heat0))) {
        if (rank == 0)
            fprintf(stderr, APP ": heat not conserved: %.17g -> %.17g\n", heat0, heat);
        ok = 0;
    }
    if (!(mm[0] <= mm0[0] * (1.0 + 1e-14)) || !(mm[1] <= mm0[1] + 1e-14)) {
        if (rank == 0)
            fprintf(stderr, APP ": maximum principle violated: range [%.17g, %.17g] -> "
                            "[%.17g, %.17g]\n", -mm0[1], mm0[0], -mm[1], mm[0]);
        ok = 0;
    }
    if ((double)n * (double)n * (double)n * (double)iters <= 2e6)
        ok = serial_check((int)n, iters, cp, im, u, g0, ext, rank) && ok;
    int all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);

    double elapsed = MPI_Wtime() - t0, tmax = 0.0;
    MPI_Reduce(&elapsed, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        print_result(APP, np, tmax, all_ok);
    free(u);
    free(bufs);
    free(cp);
    free(im);
    MPI_Finalize();
    return all_ok ? 0 : 1;
}
