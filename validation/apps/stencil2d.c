/*
 * stencil2d — 2-D explicit heat equation (Jacobi-type 5-point stencil) on a 2-D process grid.
 *
 * Pattern: SPMD, regular iterations. Each iteration: non-blocking halo exchange with up to four
 * neighbours (MPI_Irecv / MPI_Isend / MPI_Waitall; the two column halos are packed into
 * contiguous buffers), then a 5-point update of the local block. Every K = 10 iterations the
 * global residual ||u_new - u||^2 is combined with MPI_Allreduce.
 *
 *   usage: stencil2d [N [ITERS]]     N = global grid side (N x N cells), ITERS = time steps
 *   test size:       stencil2d 256 100        (the defaults)
 *   validation size: stencil2d 4096 150
 *
 * Decomposition: MPI_Dims_create(np, 2) -> PR x PC (dims[0] x dims[1]); ranks are plain
 * MPI_COMM_WORLD ranks, rank = pr * PC + pc (row-major), computed by hand (no Cartesian
 * communicator). Rows of the grid are split over the PR process rows, columns over the PC
 * process columns (block distribution, remainders to the first blocks). The outer boundary is
 * insulated (zero flux), so the total heat sum(u) is conserved exactly up to rounding.
 *
 * Verification (can fail; any failure -> "verification = FAILED", exit status 1):
 *   1. conservation: |sum(u_final) - sum(u_initial)| <= 1e-11 * sum(u_initial). A wrong or stale
 *      halo breaks the pairwise cancellation of fluxes between ranks and shows up here.
 *   2. the residual ||u^{k+1} - u^k||^2 (an Allreduce every 10 iterations) never increases (the
 *      explicit scheme with alpha = 0.2 is a contraction on differences) and is finite.
 *   3. small problems only (N <= 512 and N*N*ITERS <= 3e7): rank 0 reruns the whole problem
 *      serially and compares the final sum, a position-weighted checksum and every residual
 *      (relative tolerance 1e-12; the cell values are bitwise identical, only summation order
 *      differs).
 *
 * MPI calls, per rank, normal path (args valid, N >= PR and N >= PC). Let (PR, PC) be the dims
 * returned by MPI_Dims_create(np, 2, {0,0}), pr = rank / PC, pc = rank % PC, and
 *   nb = (pr > 0) + (pr < PR-1) + (pc > 0) + (pc < PC-1)        (existing neighbours, 0..4)
 * e.g. np=1: 1x1, nb=0; np=2: 2x1, nb=1; np=4: 2x2, nb=2 on every rank; np=6: 3x2, nb=2 or 3.
 *   MPI_Init          1
 *   MPI_Comm_rank     1   (MPI_COMM_WORLD)
 *   MPI_Comm_size     1   (MPI_COMM_WORLD)
 *   MPI_Dims_create   1
 *   MPI_Allreduce     floor(ITERS/10) + 3
 *                       setup: 1 (initial heat, 1 double, SUM)
 *                       loop:  1 after iterations 10, 20, ... (residual, 1 double, SUM)
 *                       end:   1 (final heat + checksum, 2 doubles, SUM) + 1 (ok flag, 1 int, MIN)
 *   MPI_Barrier       1   (end of setup, just before the first MPI_Wtime)
 *   MPI_Wtime         2   (t0 after setup; t1 after verification, just before MPI_Reduce)
 *   MPI_Irecv         nb * ITERS     (posted first each iteration, order N, S, W, E)
 *   MPI_Isend         nb * ITERS     (then, order N, S, W, E)
 *   MPI_Waitall       ITERS          (one per iteration, count 2*nb; called even when nb = 0)
 *   MPI_Reduce        1   (elapsed time, MAX, root 0)
 *   MPI_Finalize      1
 * No other MPI call is made. Message sizes: north/south rows nc doubles, west/east columns nr
 * doubles (nr x nc = local block). Per-iteration order: Irecv x nb, Isend x nb, Waitall, compute,
 * [Allreduce when (iteration+1) % 10 == 0].
 * Bad arguments: rank 0 prints one usage line on stderr; every rank calls MPI_Finalize, exit 2.
 */
#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"

#define APP "stencil2d"
#define DEF_N 256
#define DEF_ITERS 100
#define K_RESID 10
#define ALPHA 0.2

enum { TAG_TO_N = 11, TAG_TO_S = 12, TAG_TO_W = 13, TAG_TO_E = 14 };

/* first index of block p when n items are split into P blocks */
/* decomposition-independent pseudo-random initial value in [0, 1) (splitmix64 of the cell id) */
static double init_value(long gi, long gj, long n)
{
    uint64_t z = (uint64_t)(gi * n + gj) + 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

static double weight(long gi, long gj)
{
    return 1.0 + (double)((gi * 131 + gj * 71) % 97) / 97.0;
}

/* One explicit step on an (nr+2) x (nc+2) array with filled halos. Returns ||v-u||^2 when
 * want_res, else 0. Shared by the distributed run and the serial check. */
static double step(const double *restrict u, double *restrict v, int nr, int nc, int want_res)
{
    const size_t w = (size_t)nc + 2;
    double res = 0.0;
    for (int i = 1; i <= nr; i++) {
        const double *up = u + (size_t)(i - 1) * w;
        const double *uc = u + (size_t)i * w;
        const double *dn = u + (size_t)(i + 1) * w;
        double *vc = v + (size_t)i * w;
        if (want_res) {
            for (int j = 1; j <= nc; j++) {
                double d = ALPHA * (up[j] + dn[j] + uc[j - 1] + uc[j + 1] - 4.0 * uc[j]);
                vc[j] = uc[j] + d;
                res += d * d;
            }
        } else {
            for (int j = 1; j <= nc; j++) {
                double d = ALPHA * (up[j] + dn[j] + uc[j - 1] + uc[j + 1] - 4.0 * uc[j]);
                vc[j] = uc[j] + d;
            }
        }
    }
    return res;
}

/* insulated outer boundary: copy the edge cells into the halo on the sides given */
static void mirror(double *u, int nr, int nc, int n_side, int s_side, int w_side, int e_side)
{
    const size_t w = (size_t)nc + 2;
    if (n_side)
        memcpy(u + 1, u + w + 1, (size_t)nc * sizeof(double));
    if (s_side)
        memcpy(u + (size_t)(nr + 1) * w + 1, u + (size_t)nr * w + 1, (size_t)nc * sizeof(double));
    for (int i = 1; i <= nr; i++) {
        if (w_side)
            u[(size_t)i * w] = u[(size_t)i * w + 1];
        if (e_side)
            u[(size_t)i * w + (size_t)nc + 1] = u[(size_t)i * w + (size_t)nc];
    }
}

static void sums(const double *u, int nr, int nc, long r0, long c0, double out[2])
{
    const size_t w = (size_t)nc + 2;
    double s = 0.0, ws = 0.0;
    for (int i = 1; i <= nr; i++)
        for (int j = 1; j <= nc; j++) {
            double x = u[(size_t)i * w + (size_t)j];
            s += x;
            ws += x * weight(r0 + i - 1, c0 + j - 1);
        }
    out[0] = s;
    out[1] = ws;
}

static int close_rel(double a, double b, double tol)
{
    double scale = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    return fabs(a - b) <= tol * (scale > 1e-300 ? scale : 1e-300);
}

/* rank 0 only: serial rerun; returns 1 when it agrees with the distributed results */
static int serial_check(int n, int iters, const double glob[2], const double *res_hist)
{
    size_t cells = (size_t)(n + 2) * (size_t)(n + 2);
    double *u = calloc(cells, sizeof(double)), *v = calloc(cells, sizeof(double));
    if (!u || !v) {
        free(u);
        free(v);
        fprintf(stderr, APP ": serial check: out of memory\n");
        return 0;
    }
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++)
            u[(size_t)i * (size_t)(n + 2) + (size_t)j] = init_value(i - 1, j - 1, n);
    int ok = 1;
    for (int it = 0; it < iters; it++) {
        mirror(u, n, n, 1, 1, 1, 1);
        int want = (it + 1) % K_RESID == 0;
        double r = step(u, v, n, n, want);
        if (want && ok && !close_rel(r, res_hist[it / K_RESID], 1e-12)) {
            fprintf(stderr, APP ": residual %d differs from serial: %.17g vs %.17g\n", it + 1,
                    res_hist[it / K_RESID], r);
            ok = 0;
        }
        double *t = u;
        u = v;
        v = t;
    }
    double ser[2];
    sums(u, n, n, 0, 0, ser);
    if (!close_rel(ser[0], glob[0], 1e-12) || !close_rel(ser[1], glob[1], 1e-12)) {
        fprintf(stderr, APP ": checksums differ from serial: %.17g %.17g vs %.17g %.17g\n",
                glob[0], glob[1], ser[0], ser[1]);
        ok = 0;
    }
    free(u);
    free(v);
    return ok;
}

int main(int argc, char **argv)
{
    int rank, np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);

    long n = DEF_N, iters = DEF_ITERS;
    int bad = parse_size_iters(argc, argv, &n, 4, 1L << 20, &iters, 1, 100000000L);

    int dims[2] = {0, 0};
    MPI_Dims_create(np, 2, dims);
    const int PR = dims[0], PC = dims[1];
    if (!bad && (n < PR || n < PC))
        bad = 1;
    if (bad) {
        if (rank == 0)
            fprintf(stderr, "usage: " APP " [N [ITERS]]  (N: grid side, %d..1048576; ITERS >= 1;"
                            " defaults %d %d)\n", PR > 4 ? PR : 4, DEF_N, DEF_ITERS);
        MPI_Finalize();
        return 2;
    }

    const int pr = rank / PC, pc = rank % PC;
    const int r0 = bstart(pr, (int)n, PR), nr = bstart(pr + 1, (int)n, PR) - r0;
    const int c0 = bstart(pc, (int)n, PC), nc = bstart(pc + 1, (int)n, PC) - c0;
    const int north = pr > 0 ? rank - PC : -1, south = pr < PR - 1 ? rank + PC : -1;
    const int west = pc > 0 ? rank - 1 : -1, east = pc < PC - 1 ? rank + 1 : -1;
    const size_t w = (size_t)nc + 2, cells = (size_t)(nr + 2) * w;

    double *u = calloc(cells, sizeof(double)), *v = calloc(cells, sizeof(double));
    double *cbuf = malloc(4 * (size_t)nr * sizeof(double));
    long nres = iters / K_RESID;
    double *res_hist = malloc((size_t)(nres > 0 ? nres : 1) * sizeof(double));
    if (!u || !v || !cbuf || !res_hist) {
        fprintf(stderr, APP ": rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    double *w_out = cbuf, *w_in = cbuf + nr, *e_out = cbuf + 2 * nr, *e_in = cbuf + 3 * nr;

    for (int i = 1; i <= nr; i++)
        for (int j = 1; j <= nc; j++)
            u[(size_t)i * w + (size_t)j] = init_value(r0 + i - 1, c0 + j - 1, n);
    double loc0[2], heat0;
    sums(u, nr, nc, r0, c0, loc0);
    MPI_Allreduce(&loc0[0], &heat0, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();

    MPI_Request req[8];
    for (long it = 0; it < iters; it++) {
        int nreq = 0;
        if (north >= 0)
            MPI_Irecv(u + 1, nc, MPI_DOUBLE, north, TAG_TO_S, MPI_COMM_WORLD, &req[nreq++]);
        if (south >= 0)
            MPI_Irecv(u + (size_t)(nr + 1) * w + 1, nc, MPI_DOUBLE, south, TAG_TO_N, MPI_COMM_WORLD,
                      &req[nreq++]);
        if (west >= 0)
            MPI_Irecv(w_in, nr, MPI_DOUBLE, west, TAG_TO_E, MPI_COMM_WORLD, &req[nreq++]);
        if (east >= 0)
            MPI_Irecv(e_in, nr, MPI_DOUBLE, east, TAG_TO_W, MPI_COMM_WORLD, &req[nreq++]);
        for (int i = 0; i < nr; i++) {
            w_out[i] = u[(size_t)(i + 1) * w + 1];
            e_out[i] = u[(size_t)(i + 1) * w + (size_t)nc];
        }
        if (north >= 0)
            MPI_Isend(u + w + 1, nc, MPI_DOUBLE, north, TAG_TO_N, MPI_COMM_WORLD, &req[nreq++]);
        if (south >= 0)
            MPI_Isend(u + (size_t)nr * w + 1, nc, MPI_DOUBLE, south, TAG_TO_S, MPI_COMM_WORLD,
                      &req[nreq++]);
        if (west >= 0)
            MPI_Isend(w_out, nr, MPI_DOUBLE, west, TAG_TO_W, MPI_COMM_WORLD, &req[nreq++]);
        if (east >= 0)
            MPI_Isend(e_out, nr, MPI_DOUBLE, east, TAG_TO_E, MPI_COMM_WORLD, &req[nreq++]);
        MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);

        for (int i = 0; i < nr; i++) {
            if (west >= 0)
                u[(size_t)(i + 1) * w] = w_in[i];
            if (east >= 0)
                u[(size_t)(i + 1) * w + (size_t)nc + 1] = e_in[i];
        }
        mirror(u, nr, nc, north < 0, south < 0, west < 0, east < 0);

        int want = (it + 1) % K_RESID == 0;
        double lres = step(u, v, nr, nc, want);
        double *t = u;
        u = v;
        v = t;
        if (want)
            MPI_Allreduce(&lres, &res_hist[it / K_RESID], 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }

    /* ---- verification */
    int ok = 1;
    double loc[2], glob[2];
    sums(u, nr, nc, r0, c0, loc);
    MPI_Allreduce(loc, glob, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (!(fabs(glob[0] - heat0) <= 1e-11 * fabs(heat0))) {
        if (rank == 0)
            fprintf(stderr, APP ": heat not conserved: %.17g -> %.17g\n", heat0, glob[0]);
        ok = 0;
    }
    for (long k = 0; k < nres; k++) {
        int finite = isfinite(res_hist[k]);
        int grew = k > 0 && res_hist[k] > res_hist[k - 1] * (1.0 + 1e-9) + 1e-24 * (double)n * (double)n;
        if (!finite || grew) {
            if (rank == 0)
                fprintf(stderr, APP ": residual %ld is %.17g (previous %.17g)\n", (k + 1) * K_RESID,
                        res_hist[k], k > 0 ? res_hist[k - 1] : 0.0);
            ok = 0;
            break;
        }
    }
    if (rank == 0 && n <= 512 && (double)n * (double)n * (double)iters <= 3e7)
        ok = serial_check((int)n, (int)iters, glob, res_hist) && ok;
    int all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);

    double elapsed = MPI_Wtime() - t0, tmax = 0.0;
    MPI_Reduce(&elapsed, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        print_result(APP, np, tmax, all_ok);
    }
    free(u);
    free(v);
    free(cbuf);
    free(res_hist);
    MPI_Finalize();
    return all_ok ? 0 : 1;
}
