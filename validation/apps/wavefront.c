/*
 * wavefront — pipelined wavefront sweeps (LU / Sweep3D pattern) on a 2-D process grid.
 *
 * The global N x N x N box is split in x and y over a PR x PC process grid (MPI_Dims_create;
 * plain MPI_COMM_WORLD ranks, rank = pr * PC + pc; x follows pc, y follows pr); z stays whole
 * and is cut into NB k-blocks (NB = min(N, 16)) that pipeline the sweep. Each iteration does
 * four sweeps, one from each corner of the x-y plane (z runs up for sweeps 0 and 3, down for
 * 1 and 2). In a sweep, for every k-block in order, a rank:
 *     MPI_Recv  the inflow face from its upstream x neighbour (west for +x sweeps), if any
 *     MPI_Recv  the inflow face from its upstream y neighbour (north for +y sweeps), if any
 *     computes the block with the recurrence below
 *     MPI_Send  the outflow face to its downstream x neighbour (east for +x), if any
 *     MPI_Send  the outflow face to its downstream y neighbour (south for +y), if any
 * all blocking. After the four sweeps: one MPI_Allreduce (7 doubles, SUM) carrying the norm of
 * the change of phi plus the balance terms checked below.
 *
 * Recurrence (a source iteration of a discrete transport-like operator): in sweep direction
 * (sx, sy, sz), for every cell
 *     u(c) = W0 s(c) + WY u(c - sy ey) + WZ u(c - sz ez) + WX u(c - sx ex)
 * with zero inflow at the outer boundary; phi_new = mean of the four sweeps' u;
 * s = q + SIGMA phi for the next iteration (q a fixed pseudo-random source). Since
 * WX + WY + WZ = 0.75 and SIGMA = 0.2 the iteration contracts by at least 0.8 per step.
 *
 *   usage: wavefront [N [ITERS]]   N = box side (N^3 cells), ITERS = iterations (4 sweeps each)
 *   test size:       wavefront 40 10       (the defaults)
 *   validation size: wavefront 160 80
 *
 * Verification (can fail; "verification = FAILED", exit status 1):
 *   1. balance, every sweep of every iteration: summing the recurrence over the whole box,
 *        (1 - WX - WY - WZ) sum(u) + WX out_x + WY out_y + WZ out_z = W0 sum(s)
 *      where out_* are sums of u over the outer faces the sweep leaves by. Each rank adds its
 *      share (outer faces only), so a message whose content differs from what the neighbour
 *      computed breaks it. Tolerance 1e-10 relative.
 *   2. the change ||phi_new - phi_old|| contracts by 0.8 per iteration (up to rounding noise).
 *   3. small problems (N <= 48 and N^3 * ITERS <= 2e7): rank 0 recomputes everything serially
 *      and compares sum(phi) and a position-weighted checksum (1e-12 relative; cell values are
 *      bitwise identical, only summation order differs).
 *
 * MPI calls per rank (normal path): MPI_Init 1, MPI_Comm_rank 1, MPI_Comm_size 1,
 * MPI_Dims_create 1, MPI_Barrier 1, MPI_Wtime 2, MPI_Allreduce ITERS + 2 (one per iteration, a
 * checksum and the ok flag at the end), MPI_Recv 2 * NB * nb * ITERS and MPI_Send 2 * NB * nb *
 * ITERS, where nb = (pr > 0) + (pr < PR-1) + (pc > 0) + (pc < PC-1) is the number of existing
 * neighbours (each is upstream in two of the four sweeps and downstream in the other two),
 * MPI_Reduce 1, MPI_Finalize 1. E.g. np=4 (2x2 grid, nb=2): 4*NB receives and 4*NB sends per
 * iteration on every rank.
 */
#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"

#define APP "wavefront"
#define DEF_N 40
#define DEF_ITERS 10
#define MAX_NB 16
#define TAG_SWEEP 40

static const double W0 = 1.0, WX = 0.30, WY = 0.25, WZ = 0.20, SIGMA = 0.2;

static double qsrc(long gi, long gj, long gk, long n)
{
    uint64_t z = (uint64_t)((gk * n + gj) * n + gi) + 0x6A09E667F3BCC909ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return 0.5 + (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

static double weight(long gi, long gj, long gk)
{
    return 1.0 + (double)((gi * 7 + gj * 131 + gk * 71) % 101) / 101.0;
}

/* one block of a sweep: box nx*ny*nz (index (k*ny + j)*nx + i), planes k in [klo, khi) taken in
 * sweep order; fx[kl*ny + j] / fy[kl*nx + i] are the inflow faces (kl = position of the plane in
 * the block), ox / oy receive the outflow faces. Returns the sum of the computed u. */
static double sweep_block(int nx, int ny, int nz, int klo, int khi, int sx, int sy, int sz,
                          const double *restrict s, double *restrict u, double *restrict phi,
                          const double *restrict fx, const double *restrict fy,
                          double *restrict ox, double *restrict oy)
{
    double usum = 0.0;
    const int kb = khi - klo;
    for (int kl = 0; kl < kb; kl++) {
        const int k = sz > 0 ? klo + kl : khi - 1 - kl;
        const int kp = k - sz;
        const int kvalid = kp >= 0 && kp < nz;
        for (int jj = 0; jj < ny; jj++) {
            const int j = sy > 0 ? jj : ny - 1 - jj;
            const size_t off = ((size_t)k * (size_t)ny + (size_t)j) * (size_t)nx;
            double *row = u + off, *prow = phi + off;
            const double *srow = s + off;
            const double *rn = jj > 0 ? u + ((size_t)k * (size_t)ny + (size_t)(j - sy)) * (size_t)nx
                                      : fy + (size_t)kl * (size_t)nx;
            const double *rb = kvalid ? u + ((size_t)kp * (size_t)ny + (size_t)j) * (size_t)nx : NULL;
            double west = fx[(size_t)kl * (size_t)ny + (size_t)j];
            if (sx > 0) {
                for (int i = 0; i < nx; i++) {
                    double v = ((W0 * srow[i] + WY * rn[i]) + WZ * (rb ? rb[i] : 0.0)) + WX * west;
                    row[i] = v;
                    prow[i] += 0.25 * v;
                    usum += v;
                    west = v;
                }
            } else {
                for (int i = nx - 1; i >= 0; i--) {
                    double v = ((W0 * srow[i] + WY * rn[i]) + WZ * (rb ? rb[i] : 0.0)) + WX * west;
                    row[i] = v;
                    prow[i] += 0.25 * v;
                    usum += v;
                    west = v;
                }
            }
            ox[(size_t)kl * (size_t)ny + (size_t)j] = west;
        }
        const int jl = sy > 0 ? ny - 1 : 0;
        memcpy(oy + (size_t)kl * (size_t)nx, u + ((size_t)k * (size_t)ny + (size_t)jl) * (size_t)nx,
               (size_t)nx * sizeof(double));
    }
    return usum;
}

static void sweep_dir(int d, int *sx, int *sy, int *sz)
{
    *sx = (d & 1) ? -1 : 1;
    *sy = (d & 2) ? -1 : 1;
    *sz = (d == 0 || d == 3) ? 1 : -1;
}

static void checksums(const double *phi, int nx, int ny, int nz, long x0, long y0, double out[2])
{
    double a = 0.0, b = 0.0;
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++) {
                double v = phi[((size_t)k * (size_t)ny + (size_t)j) * (size_t)nx + (size_t)i];
                a += v;
                b += v * weight(x0 + i, y0 + j, k);
            }
    out[0] = a;
    out[1] = b;
}

static int close_rel(double a, double b, double tol)
{
    double scale = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    return fabs(a - b) <= tol * (scale > 1e-300 ? scale : 1e-300);
}

/* rank 0 only: the whole problem on one "rank"; returns 1 if the checksums agree */
static int serial_check(int n, long iters, const double glob[2])
{
    const size_t cells = (size_t)n * (size_t)n * (size_t)n, face = (size_t)n * (size_t)n;
    double *q = malloc(cells * sizeof(double)), *s = malloc(cells * sizeof(double));
    double *u = malloc(cells * sizeof(double)), *phi = calloc(cells, sizeof(double));
    double *zero = calloc(face, sizeof(double)), *ox = malloc(face * sizeof(double));
    double *oy = malloc(face * sizeof(double));
    int ok = 0;
    if (q && s && u && phi && zero && ox && oy) {
        for (int k = 0; k < n; k++)
            for (int j = 0; j < n; j++)
                for (int i = 0; i < n; i++)
                    q[((size_t)k * (size_t)n + (size_t)j) * (size_t)n + (size_t)i] = qsrc(i, j, k, n);
        memcpy(s, q, cells * sizeof(double));
        for (long it = 0; it < iters; it++) {
            memset(phi, 0, cells * sizeof(double));
            for (int d = 0; d < 4; d++) {
                int sx, sy, sz;
                sweep_dir(d, &sx, &sy, &sz);
                sweep_block(n, n, n, 0, n, sx, sy, sz, s, u, phi, zero, zero, ox, oy);
            }
            for (size_t c = 0; c < cells; c++)
                s[c] = q[c] + SIGMA * phi[c];
        }
        double ser[2];
        checksums(phi, n, n, n, 0, 0, ser);
        ok = close_rel(ser[0], glob[0], 1e-12) && close_rel(ser[1], glob[1], 1e-12);
        if (!ok)
            fprintf(stderr, APP ": checksums differ from serial: %.17g %.17g vs %.17g %.17g\n",
                    glob[0], glob[1], ser[0], ser[1]);
    } else {
        fprintf(stderr, APP ": serial check: out of memory\n");
    }
    free(q);
    free(s);
    free(u);
    free(phi);
    free(zero);
    free(ox);
    free(oy);
    return ok;
}

int main(int argc, char **argv)
{
    int rank, np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);

    long n = DEF_N, iters = DEF_ITERS;
    int bad = parse_size_iters(argc, argv, &n, 2, 4096, &iters, 1, 100000000L);
    int dims[2] = {0, 0};
    MPI_Dims_create(np, 2, dims);
    const int PR = dims[0], PC = dims[1];
    if (!bad && (n < PR || n < PC))
        bad = 1;
    if (bad) {
        if (rank == 0)
            fprintf(stderr, "usage: " APP " [N [ITERS]]  (N: box side, %d..4096; ITERS >= 1;"
                            " defaults %d %d)\n", PR > 2 ? PR : 2, DEF_N, DEF_ITERS);
        MPI_Finalize();
        return 2;
    }

    const int pr = rank / PC, pc = rank % PC;
    const int x0 = bstart(pc, (int)n, PC), nx = bstart(pc + 1, (int)n, PC) - x0;
    const int y0 = bstart(pr, (int)n, PR), ny = bstart(pr + 1, (int)n, PR) - y0;
    const int nz = (int)n, nb = nz < MAX_NB ? nz : MAX_NB;
    const int west = pc > 0 ? rank - 1 : -1, east = pc < PC - 1 ? rank + 1 : -1;
    const int north = pr > 0 ? rank - PC : -1, south = pr < PR - 1 ? rank + PC : -1;
    const int kbmax = (nz + nb - 1) / nb;
    const size_t cells = (size_t)nx * (size_t)ny * (size_t)nz;

    double *q = malloc(cells * sizeof(double)), *s = malloc(cells * sizeof(double));
    double *u = malloc(cells * sizeof(double)), *phi = calloc(cells, sizeof(double));
    double *phi_old = calloc(cells, sizeof(double));
    double *fx = malloc((size_t)ny * (size_t)kbmax * sizeof(double));
    double *ox = malloc((size_t)ny * (size_t)kbmax * sizeof(double));
    double *fy = malloc((size_t)nx * (size_t)kbmax * sizeof(double));
    double *oy = malloc((size_t)nx * (size_t)kbmax * sizeof(double));
    double *hist = malloc((size_t)iters * sizeof(double));
    if (!q || !s || !u || !phi || !phi_old || !fx || !ox || !fy || !oy || !hist) {
        fprintf(stderr, APP ": rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++)
                q[((size_t)k * (size_t)ny + (size_t)j) * (size_t)nx + (size_t)i] =
                    qsrc(x0 + i, y0 + j, k, n);
    memcpy(s, q, cells * sizeof(double));

    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();

    int ok = 1;
    for (long it = 0; it < iters; it++) {
        double red[7] = {0, 0, 0, 0, 0, 0, 0}; /* diff^2, balance[4], W0 sum(s), phi^2 */
        double *tmp = phi_old;
        phi_old = phi;
        phi = tmp;
        memset(phi, 0, cells * sizeof(double));
        double ssum = 0.0;
        for (size_t c = 0; c < cells; c++)
            ssum += s[c];
        for (int d = 0; d < 4; d++) {
            int sx, sy, sz;
            sweep_dir(d, &sx, &sy, &sz);
            const int upx = sx > 0 ? west : east, dnx = sx > 0 ? east : west;
            const int upy = sy > 0 ? north : south, dny = sy > 0 ? south : north;
            double usum = 0.0, outx = 0.0, outy = 0.0;
            for (int b = 0; b < nb; b++) {
                const int bb = sz > 0 ? b : nb - 1 - b;
                const int klo = bstart(bb, nz, nb), khi = bstart(bb + 1, nz, nb), kb = khi - klo;
                if (upx >= 0)
                    MPI_Recv(fx, ny * kb, MPI_DOUBLE, upx, TAG_SWEEP + d, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
                else
                    memset(fx, 0, (size_t)ny * (size_t)kb * sizeof(double));
                if (upy >= 0)
                    MPI_Recv(fy, nx * kb, MPI_DOUBLE, upy, TAG_SWEEP + d, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
                else
                    memset(fy, 0, (size_t)nx * (size_t)kb * sizeof(double));
                usum += sweep_block(nx, ny, nz, klo, khi, sx, sy, sz, s, u, phi, fx, fy, ox, oy);
                if (dnx >= 0)
                    MPI_Send(ox, ny * kb, MPI_DOUBLE, dnx, TAG_SWEEP + d, MPI_COMM_WORLD);
                else
                    for (int c = 0; c < ny * kb; c++)
                        outx += ox[c];
                if (dny >= 0)
                    MPI_Send(oy, nx * kb, MPI_DOUBLE, dny, TAG_SWEEP + d, MPI_COMM_WORLD);
                else
                    for (int c = 0; c < nx * kb; c++)
                        outy += oy[c];
            }
            /* z outflow face: the last plane in sweep order */
            const int klast = sz > 0 ? nz - 1 : 0;
            double outz = 0.0;
            const double *pl = u + (size_t)klast * (size_t)ny * (size_t)nx;
            for (size_t c = 0; c < (size_t)nx * (size_t)ny; c++)
                outz += pl[c];
            red[1 + d] = (1.0 - WX - WY - WZ) * usum + WX * outx + WY * outy + WZ * outz - W0 * ssum;
        }
        for (size_t c = 0; c < cells; c++) {
            double dd = phi[c] - phi_old[c];
            red[0] += dd * dd;
            red[6] += phi[c] * phi[c];
            s[c] = q[c] + SIGMA * phi[c];
        }
        red[5] = W0 * ssum;
        double g[7];
        MPI_Allreduce(red, g, 7, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        hist[it] = sqrt(g[0]);
        for (int d = 0; d < 4; d++)
            if (ok && !(fabs(g[1 + d]) <= 1e-10 * g[5])) {
                if (rank == 0)
                    fprintf(stderr, APP ": iteration %ld sweep %d: balance off by %.3e of %.6e\n",
                            it, d, g[1 + d], g[5]);
                ok = 0;
            }
        if (ok && it > 0 && !(hist[it] <= 0.8 * hist[it - 1] * (1.0 + 1e-9) + 1e-12 * sqrt(g[6]))) {
            if (rank == 0)
                fprintf(stderr, APP ": iteration %ld: change %.6e did not contract (previous %.6e)\n",
                        it, hist[it], hist[it - 1]);
            ok = 0;
        }
    }

    double loc[2], glob[2];
    checksums(phi, nx, ny, nz, x0, y0, loc);
    MPI_Allreduce(loc, glob, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && n <= 48 && (double)n * (double)n * (double)n * (double)iters <= 2e7)
        ok = serial_check((int)n, iters, glob) && ok;
    int all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);

    double elapsed = MPI_Wtime() - t0, tmax = 0.0;
    MPI_Reduce(&elapsed, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        print_result(APP, np, tmax, all_ok);
    }
    free(q);
    free(s);
    free(u);
    free(phi);
    free(phi_old);
    free(fx);
    free(ox);
    free(fy);
    free(oy);
    free(hist);
    MPI_Finalize();
    return all_ok ? 0 : 1;
}
