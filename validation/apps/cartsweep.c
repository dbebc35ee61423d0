/*
 * cartsweep — SNAP-like discrete-ordinates transport sweep on a Cartesian communicator.
 *
 * Setup: MPI_Dims_create(np, 2) -> MPI_Cart_create (non-periodic, no reorder) -> MPI_Cart_coords,
 * MPI_Cart_shift in both dimensions for the neighbours, MPI_Cart_sub into a row communicator
 * (same coords[0]) and a column communicator (same coords[1]), and MPI_Comm_dup of the Cartesian
 * communicator for the final checks (freed with MPI_Comm_free like the others).
 *
 * Problem: 2-D, N x N unit cells, G = 4 energy groups, 4 quadrants x A = 8 angles, step
 * characteristics, vacuum boundaries, a source symmetric in x; source iteration with in-group and
 * down-scattering (scattering ratio 0.6, so the iteration contracts). Dimension 0 of the grid
 * (process rows, y) is split UNEVENLY: process row r gets a share proportional to 3 + r of the
 * N cell rows, so lower rows of the process grid carry more work (irregular, not SPMD-balanced);
 * dimension 1 (x) is split evenly.
 *
 * One iteration (ITERS of them):
 *   for each quadrant, for each of the A angles (the pipeline stage), on the Cartesian comm:
 *     MPI_Recv x-inflow (ny*G doubles) from the upstream x neighbour, if any
 *     MPI_Recv y-inflow (nx*G doubles) from the upstream y neighbour, if any
 *     sweep the local cells for that angle, all groups
 *     MPI_Send x-outflow to the downstream x neighbour, MPI_Send y-outflow downstream in y, if any
 *   MPI_Allreduce (row comm, SUM, 3G doubles): per-group source, absorption, leakage of the row
 *   MPI_Reduce (column comm, SUM, root 0) of the row totals, MPI_Bcast (column comm, root 0):
 *     every rank gets the global balance terms
 *   MPI_Allreduce (Cartesian comm, MAX, 2 doubles): max |phi_new - phi_old| and max |phi|
 *
 *   usage: cartsweep [N [ITERS]]   N = cells per side, ITERS = source iterations
 *   test size:       cartsweep 64 20       (the defaults)
 *   validation size: cartsweep 448 100
 *
 * Verification (can fail; "verification = FAILED", exit status 1):
 *   1. particle balance per group, every iteration: source = absorption + leakage
 *      (relative 1e-10). Leakage is counted only on the outer boundary, so a face message that
 *      differs from what the neighbour sent breaks the balance.
 *   2. the change max|phi_new - phi_old| contracts by the scattering ratio 0.6 every iteration
 *      (up to rounding noise).
 *   3. mirror symmetry in x: sum phi(i,j) (i+1) == sum phi(i,j) (N-i) (relative 1e-10) — wrong
 *      direction handling or a bad x message breaks it.
 *
 * MPI calls per rank (normal path): MPI_Init 1, MPI_Comm_rank 2 (world, cart), MPI_Comm_size 1,
 * MPI_Dims_create 1, MPI_Cart_create 1, MPI_Cart_coords 1, MPI_Cart_shift 2, MPI_Cart_sub 2,
 * MPI_Comm_dup 1, MPI_Barrier 1 (cart), MPI_Wtime 2, per iteration: MPI_Recv / MPI_Send
 * 2 * A * nb each (nb = number of existing neighbours: each is upstream in two quadrants and
 * downstream in two), MPI_Allreduce 2, MPI_Reduce 1, MPI_Bcast 1; at the end MPI_Allreduce 2
 * (dup comm), MPI_Comm_free 4, MPI_Reduce 1 (time, world), MPI_Finalize 1.
 */
#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"

#define APP "cartsweep"
#define DEF_N 64
#define DEF_ITERS 20
#define G 4
#define A 8
#define TAG_SWEEP 50

static const double PI = 3.14159265358979323846;
static const double SIGT[G] = {1.0, 1.3, 1.7, 2.2};
static const double C_IN = 0.4, C_DOWN = 0.2; /* in-group and down-scatter, fractions of sigma_t */

/* uneven split of n over P parts, part r weighted 3 + r */
static int ustart(int r, int n, int P)
{
    long wsum = 0, wbefore = 0;
    for (int k = 0; k < P; k++) {
        wsum += 3 + k;
        if (k < r)
            wbefore += 3 + k;
    }
    return (int)((long)n * wbefore / wsum);
}

/* external source, symmetric in x: depends on min(i, n-1-i) */
static double qsrc(long i, long j, int g, long n)
{
    long im = i < n - 1 - i ? i : n - 1 - i;
    uint64_t z = (uint64_t)((im * n + j) * G + g) + 0xBB67AE8584CAA73BULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    double r = (double)(z >> 11) * (1.0 / 9007199254740992.0);
    return (g == 0 ? 1.0 : 0.2) * (0.5 + r);
}

int main(int argc, char **argv)
{
    int wrank, np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);

    long n = DEF_N, iters = DEF_ITERS;
    int bad = parse_size_iters(argc, argv, &n, 2, 1L << 16, &iters, 1, 100000000L);
    int dims[2] = {0, 0};
    MPI_Dims_create(np, 2, dims);
    if (!bad) /* every process row and column must own at least one cell */
        for (int r = 0; r < dims[0]; r++)
            if (ustart(r + 1, (int)n, dims[0]) - ustart(r, (int)n, dims[0]) < 1 || n < dims[1])
                bad = 1;
    if (bad) {
        if (wrank == 0)
            fprintf(stderr, "usage: " APP " [N [ITERS]]  (N: cells per side, 2..65536 and enough for"
                            " a %dx%d process grid; ITERS >= 1; defaults %d %d)\n", dims[0], dims[1],
                    DEF_N, DEF_ITERS);
        MPI_Finalize();
        return 2;
    }

    /* ---- Cartesian topology */
    MPI_Comm cart, rowc, colc, libc;
    int periods[2] = {0, 0}, coords[2], rank;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Comm_rank(cart, &rank);
    MPI_Cart_coords(cart, rank, 2, coords);
    int north, south, west, east; /* dim 0 = y (process rows), dim 1 = x (process columns) */
    MPI_Cart_shift(cart, 0, 1, &north, &south);
    MPI_Cart_shift(cart, 1, 1, &west, &east);
    int keep_row[2] = {0, 1}, keep_col[2] = {1, 0};
    MPI_Cart_sub(cart, keep_row, &rowc);
    MPI_Cart_sub(cart, keep_col, &colc);
    MPI_Comm_dup(cart, &libc);

    const int y0 = ustart(coords[0], (int)n, dims[0]), ny = ustart(coords[0] + 1, (int)n, dims[0]) - y0;
    const int x0 = bstart(coords[1], (int)n, dims[1]), nx = bstart(coords[1] + 1, (int)n, dims[1]) - x0;
    const size_t cells = (size_t)nx * (size_t)ny;

    double *q = malloc(cells * G * sizeof(double)), *src = malloc(cells * G * sizeof(double));
    double *phi = calloc(cells * G, sizeof(double)), *phio = calloc(cells * G, sizeof(double));
    double *fx = malloc((size_t)ny * G * sizeof(double)), *fy = malloc((size_t)nx * G * sizeof(double));
    double *hist = malloc((size_t)iters * sizeof(double));
    if (!q || !src || !phi || !phio || !fx || !fy || !hist) {
        fprintf(stderr, APP ": rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++)
            for (int g = 0; g < G; g++)
                q[((size_t)j * (size_t)nx + (size_t)i) * G + (size_t)g] = qsrc(x0 + i, y0 + j, g, n);
    double mu[A], eta[A];
    const double wgt = 1.0 / (4.0 * A);
    for (int a = 0; a < A; a++) {
        double th = (a + 0.5) * (PI / 2.0) / A;
        mu[a] = cos(th);
        eta[a] = sin(th);
    }

    MPI_Barrier(cart);
    const double t0 = MPI_Wtime();

    int ok = 1;
    for (long it = 0; it < iters; it++) {
        double *t = phio;
        phio = phi;
        phi = t;
        memset(phi, 0, cells * G * sizeof(double));
        double bal[3 * G] = {0}; /* source[g], absorption[g], leakage[g] */
        for (size_t c = 0; c < cells; c++)
            for (int g = 0; g < G; g++) {
                double sc = q[c * G + g] + C_IN * SIGT[g] * phio[c * G + g];
                if (g > 0)
                    sc += C_DOWN * SIGT[g - 1] * phio[c * G + g - 1];
                src[c * G + g] = sc;
                bal[g] += sc;
            }
        for (int quad = 0; quad < 4; quad++) {
            const int sx = (quad & 1) ? -1 : 1, sy = (quad & 2) ? -1 : 1;
            const int upx = sx > 0 ? west : east, dnx = sx > 0 ? east : west;
            const int upy = sy > 0 ? north : south, dny = sy > 0 ? south : north;
            for (int a = 0; a < A; a++) {
                const double cx = mu[a], cy = eta[a];
                double inv[G], cxi[G], cyi[G];
                for (int g = 0; g < G; g++) {
                    inv[g] = 1.0 / (SIGT[g] + cx + cy);
                    cxi[g] = cx * inv[g];
                    cyi[g] = cy * inv[g];
                }
                if (upx != MPI_PROC_NULL)
                    MPI_Recv(fx, ny * G, MPI_DOUBLE, upx, TAG_SWEEP + quad, cart, MPI_STATUS_IGNORE);
                else
                    memset(fx, 0, (size_t)ny * G * sizeof(double));
                if (upy != MPI_PROC_NULL)
                    MPI_Recv(fy, nx * G, MPI_DOUBLE, upy, TAG_SWEEP + quad, cart, MPI_STATUS_IGNORE);
                else
                    memset(fy, 0, (size_t)nx * G * sizeof(double));
                for (int jj = 0; jj < ny; jj++) {
                    const int j = sy > 0 ? jj : ny - 1 - jj;
                    double px[G];
                    for (int g = 0; g < G; g++)
                        px[g] = fx[(size_t)j * G + (size_t)g];
                    for (int ii = 0; ii < nx; ii++) {
                        const int i = sx > 0 ? ii : nx - 1 - ii;
                        const size_t c = ((size_t)j * (size_t)nx + (size_t)i) * G;
                        double *py = fy + (size_t)i * G;
                        for (int g = 0; g < G; g++) {
                            double psi = (src[c + g] * inv[g] + cyi[g] * py[g]) + cxi[g] * px[g];
                            px[g] = psi;
                            py[g] = psi;
                            phi[c + g] += wgt * psi;
                        }
                    }
                    for (int g = 0; g < G; g++)
                        fx[(size_t)j * G + (size_t)g] = px[g]; /* fx now holds the x-outflow */
                }
                if (dnx != MPI_PROC_NULL) {
                    MPI_Send(fx, ny * G, MPI_DOUBLE, dnx, TAG_SWEEP + quad, cart);
                } else {
                    for (int j = 0; j < ny; j++)
                        for (int g = 0; g < G; g++)
                            bal[2 * G + g] += wgt * cx * fx[(size_t)j * G + (size_t)g];
                }
                if (dny != MPI_PROC_NULL) {
                    MPI_Send(fy, nx * G, MPI_DOUBLE, dny, TAG_SWEEP + quad, cart);
                } else {
                    for (int i = 0; i < nx; i++)
                        for (int g = 0; g < G; g++)
                            bal[2 * G + g] += wgt * cy * fy[(size_t)i * G + (size_t)g];
                }
            }
        }
        double dmax[2] = {0.0, 0.0}; /* max |phi - phio|, max |phi| */
        for (size_t c = 0; c < cells; c++)
            for (int g = 0; g < G; g++) {
                double v = phi[c * G + g], d = fabs(v - phio[c * G + g]);
                bal[G + g] += SIGT[g] * v;
                if (d > dmax[0])
                    dmax[0] = d;
                if (fabs(v) > dmax[1])
                    dmax[1] = fabs(v);
            }
        double rowtot[3 * G], glob[3 * G], gmax[2];
        MPI_Allreduce(bal, rowtot, 3 * G, MPI_DOUBLE, MPI_SUM, rowc);
        MPI_Reduce(rowtot, glob, 3 * G, MPI_DOUBLE, MPI_SUM, 0, colc);
        MPI_Bcast(glob, 3 * G, MPI_DOUBLE, 0, colc);
        MPI_Allreduce(dmax, gmax, 2, MPI_DOUBLE, MPI_MAX, cart);

        for (int g = 0; g < G; g++) {
            double s = glob[g], ab = glob[G + g], lk = glob[2 * G + g];
            if (ok && !(fabs(s - ab - lk) <= 1e-10 * s && ab > 0.0 && lk > 0.0)) {
                if (rank == 0)
                    fprintf(stderr, APP ": iteration %ld group %d: source %.15g != absorption %.15g"
                                    " + leakage %.15g\n", it, g, s, ab, lk);
                ok = 0;
            }
        }
        hist[it] = gmax[0];
        if (ok && it > 0 && !(hist[it] <= 0.6 * hist[it - 1] * (1.0 + 1e-9) + 1e-13 * gmax[1])) {
            if (rank == 0)
                fprintf(stderr, APP ": iteration %ld: change %.6e did not contract (previous %.6e)\n",
                        it, hist[it], hist[it - 1]);
            ok = 0;
        }
    }

    /* ---- symmetry check on the duplicated communicator */
    double mom[2] = {0.0, 0.0}, gmom[2];
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++)
            for (int g = 0; g < G; g++) {
                double v = phi[((size_t)j * (size_t)nx + (size_t)i) * G + (size_t)g];
                mom[0] += v * (double)(x0 + i + 1);
                mom[1] += v * (double)(n - (x0 + i));
            }
    MPI_Allreduce(mom, gmom, 2, MPI_DOUBLE, MPI_SUM, libc);
    if (!(fabs(gmom[0] - gmom[1]) <= 1e-10 * gmom[0])) {
        if (rank == 0)
            fprintf(stderr, APP ": flux not symmetric in x: %.17g vs %.17g\n", gmom[0], gmom[1]);
        ok = 0;
    }
    int all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, libc);
    MPI_Comm_free(&libc);
    MPI_Comm_free(&rowc);
    MPI_Comm_free(&colc);
    MPI_Comm_free(&cart);

    double elapsed = MPI_Wtime() - t0, tmax = 0.0;
    MPI_Reduce(&elapsed, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (wrank == 0) {
        print_result(APP, np, tmax, all_ok);
    }
    free(q);
    free(src);
    free(phi);
    free(phio);
    free(fx);
    free(fy);
    free(hist);
    MPI_Finalize();
    return all_ok ? 0 : 1;
}
