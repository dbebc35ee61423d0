/*
 * md — short-range molecular dynamics: 2-D Lennard-Jones fluid, slab decomposition, velocity
 * Verlet, ghost particles whose number changes every step, migration every K steps.
 *
 * Pattern: the LAMMPS/miniMD communication structure with the sizes a real MD code has. The
 * periodic L x L box is cut into np slabs along x (rank r owns [r L/np, (r+1) L/np)). Every step
 * each rank sends the particles within RG = rc + skin of its left edge to its left neighbour and
 * those within RG of its right edge to its right neighbour (periodic: rank 0's left is np-1) as
 * ghosts. Which particles those are changes as they move, so the message sizes change from step
 * to step: the receives are posted with a buffer for the largest possible message and the count
 * is read back with MPI_Get_count. Every K = 20 steps (re-neighbouring) the particles that have
 * left their slab migrate to the neighbour (an extra exchange of the same shape, full state).
 * Every M = 50 steps the kinetic and potential energies and the particle count are summed with
 * MPI_Allreduce. Forces: shifted-force LJ (eps = sigma = 1, rc = 2.5; energy and force both
 * continuous at rc), cell lists rebuilt every step, each rank computing the forces on its own
 * particles from its own particles and its ghosts.
 *
 *   usage: md [SIZE [ITERS]]     SIZE = particles per side (SIZE^2 particles), ITERS = steps
 *   test size:       md 40 100        (the defaults)
 *   validation size: md 140 500
 *
 * Setup: density 0.7 (box side SIZE / sqrt(0.7)), particles on a square lattice, velocities from
 * a hash of the particle id (zero total momentum, temperature 1.0, the same whatever np), time
 * step 0.005. Needs a slab at least RG + skin = 3.5 wide: np <= box side / 3.5 (e.g. SIZE 40:
 * np <= 13), and SIZE >= 8.
 *
 * Verification (can fail; any failure -> "verification = FAILED", exit status 1):
 *   1. particle count: every energy sample and the end count SIZE^2 particles, and the sum of the
 *      ids at the end is that of 0 .. SIZE^2-1 (none lost, none duplicated by migration);
 *   2. total energy conserved: every sample within 1e-3 of the initial total energy, relative
 *      to KE + |PE| at the start (measured: < 1e-4 at 1600 particles over 500 steps);
 *   3. total momentum stays 0: |P| <= 1e-9 * SIZE^2 (the pair forces cancel only if every
 *      rank has the same ghosts at the same positions: one ghost left out for one step shows);
 *   4. no particle went further than the skin beyond its slab between two migrations.
 *
 * MPI calls, per rank, normal path. Let NM = floor(ITERS / K), NE = floor(ITERS / M).
 *   MPI_Init 1, MPI_Comm_rank 1, MPI_Comm_size 1
 *   MPI_Irecv, MPI_Isend   2 * (ITERS + NM + 1) each   (ghosts every step and once in the setup,
 *                          migration after steps K, 2K, ...; always both neighbours, also when they
 *                          are the same rank or this rank itself)
 *   MPI_Waitall            ITERS + NM + 1              (count 4)
 *   MPI_Get_count          2 * (ITERS + NM + 1)
 *   MPI_Allreduce          NE + 3   (setup: initial energies; every M steps: KE, PE, count;
 *                          verification: count, id sum, momentum, energies, flags; the ok flag)
 *   MPI_Barrier 1, MPI_Wtime 2, MPI_Reduce 1 (elapsed time, MAX), MPI_Finalize 1
 * Per-step order: [migration Irecv x2, Isend x2, Waitall, Get_count x2 after steps K, 2K, ...],
 * ghosts Irecv x2, Isend x2, Waitall, Get_count x2, forces, [Allreduce after steps M, 2M, ...].
 * Message sizes: ghosts 2 doubles per particle (x, y), migration 5 (x, y, vx, vy, id).
 * Bad arguments: rank 0 prints one usage line on stderr; every rank calls MPI_Finalize, exit 2.
 */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"

#define APP "md"
#define DEF_SIZE 40
#define DEF_ITERS 100
#define K_MIGRATE 20
#define M_ENERGY 50
#define DENSITY 0.7
#define T0 1.0
#define DT 0.005
#define RC 2.5
#define SKIN 0.5
#define RG (RC + SKIN)
#define E_TOL 1e-3

enum { TAG_G_TO_LEFT = 1, TAG_G_TO_RIGHT = 2, TAG_M_TO_LEFT = 3, TAG_M_TO_RIGHT = 4 };

typedef struct {
    int nloc, ngh;             /* local particles, ghosts */
    long cap;                  /* capacity of the local arrays (= all particles) */
    double *x, *y, *vx, *vy, *fx, *fy, *id;
    double *gx, *gy;           /* ghosts: capacity 2 * cap */
} parts_t;

typedef struct {
    int rank, np, left, right;
    double L, xlo, xhi;
    double *sl, *sr, *rl, *rr; /* send/receive buffers, 5 * cap doubles each (2 * cap for rl/rr
                                  ghosts would do; migration needs 5 per particle) */
    long bufcap;               /* doubles in each buffer */
    int *head, *next;          /* cell lists */
    int ncx, ncy;
    long toofar;               /* locals found beyond the skin (verification 4) */
} dom_t;

static double hash01(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

/* exchange: send *nsl doubles of sl left, *nsr of sr right; receive into rl (from the left
 * neighbour, which sent them rightwards) and rr; returns the received counts in doubles */
static void exchange(dom_t *d, int nsl, int nsr, int tag_to_left, int tag_to_right, int *nrl,
                     int *nrr)
{
    MPI_Request req[4];
    MPI_Status st[4];
    MPI_Irecv(d->rl, (int)d->bufcap, MPI_DOUBLE, d->left, tag_to_right, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(d->rr, (int)d->bufcap, MPI_DOUBLE, d->right, tag_to_left, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(d->sl, nsl, MPI_DOUBLE, d->left, tag_to_left, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(d->sr, nsr, MPI_DOUBLE, d->right, tag_to_right, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, st);
    MPI_Get_count(&st[0], MPI_DOUBLE, nrl);
    MPI_Get_count(&st[1], MPI_DOUBLE, nrr);
}

/* particles that left the slab go to the neighbour (periodic wrap in x on the way) */
static int migrate(dom_t *d, parts_t *p)
{
    int nsl = 0, nsr = 0;
    for (int i = 0; i < p->nloc;) {
        double *buf = NULL;
        double shift = 0.0;
        if (p->x[i] < d->xlo) {
            buf = d->sl + 5 * nsl++;
            shift = d->rank == 0 ? d->L : 0.0;
        } else if (p->x[i] >= d->xhi) {
            buf = d->sr + 5 * nsr++;
            shift = d->rank == d->np - 1 ? -d->L : 0.0;
        }
        if (!buf) {
            i++;
            continue;
        }
        buf[0] = p->x[i] + shift;
        buf[1] = p->y[i];
        buf[2] = p->vx[i];
        buf[3] = p->vy[i];
        buf[4] = p->id[i];
        int last = --p->nloc; /* remove: the last one takes its place */
        p->x[i] = p->x[last];
        p->y[i] = p->y[last];
        p->vx[i] = p->vx[last];
        p->vy[i] = p->vy[last];
        p->id[i] = p->id[last];
    }
    int nrl, nrr;
    exchange(d, 5 * nsl, 5 * nsr, TAG_M_TO_LEFT, TAG_M_TO_RIGHT, &nrl, &nrr);
    for (int side = 0; side < 2; side++) {
        const double *buf = side == 0 ? d->rl : d->rr;
        int n = (side == 0 ? nrl : nrr) / 5;
        for (int k = 0; k < n; k++) {
            if (p->nloc >= p->cap)
                return -1;
            int i = p->nloc++;
            p->x[i] = buf[5 * k];
            p->y[i] = buf[5 * k + 1];
            p->vx[i] = buf[5 * k + 2];
            p->vy[i] = buf[5 * k + 3];
            p->id[i] = buf[5 * k + 4];
        }
    }
    return 0;
}

/* the ghosts of this step: positions of the neighbours' particles within RG of the slab */
static int ghosts(dom_t *d, parts_t *p)
{
    int nsl = 0, nsr = 0;
    for (int i = 0; i < p->nloc; i++) {
        double x = p->x[i];
        if (x < d->xlo - SKIN || x >= d->xhi + SKIN)
            d->toofar++;
        if (x < d->xlo + RG) {
            d->sl[nsl++] = x + (d->rank == 0 ? d->L : 0.0);
            d->sl[nsl++] = p->y[i];
        }
        if (x >= d->xhi - RG) {
            d->sr[nsr++] = x - (d->rank == d->np - 1 ? d->L : 0.0);
            d->sr[nsr++] = p->y[i];
        }
    }
    int nrl, nrr;
    exchange(d, nsl, nsr, TAG_G_TO_LEFT, TAG_G_TO_RIGHT, &nrl, &nrr);
    p->ngh = 0;
    for (int side = 0; side < 2; side++) {
        const double *buf = side == 0 ? d->rl : d->rr;
        int n = (side == 0 ? nrl : nrr) / 2;
        if (p->ngh + n > 2 * p->cap)
            return -1;
        for (int k = 0; k < n; k++) {
            p->gx[p->ngh] = buf[2 * k];
            p->gy[p->ngh++] = buf[2 * k + 1];
        }
    }
    return 0;
}

/* forces on the local particles; returns their share of the potential energy */
static double forces(dom_t *d, parts_t *p)
{
    const double x0 = d->xlo - RG, wx = (d->xhi - d->xlo + 2.0 * RG) / d->ncx;
    const double wy = d->L / d->ncy, L = d->L;
    const int ntot = p->nloc + p->ngh;
    for (int c = 0; c < d->ncx * d->ncy; c++)
        d->head[c] = -1;
    for (int j = ntot - 1; j >= 0; j--) { /* reverse: lists come out in index order */
        double x = j < p->nloc ? p->x[j] : p->gx[j - p->nloc];
        double y = j < p->nloc ? p->y[j] : p->gy[j - p->nloc];
        int cx = (int)floor((x - x0) / wx), cy = (int)floor(y / wy);
        cx = cx < 0 ? 0 : cx >= d->ncx ? d->ncx - 1 : cx;
        cy = cy < 0 ? 0 : cy >= d->ncy ? d->ncy - 1 : cy;
        int c = cx * d->ncy + cy;
        d->next[j] = d->head[c];
        d->head[c] = j;
    }
    const double rc2 = RC * RC;
    const double irc6 = 1.0 / (rc2 * rc2 * rc2);
    const double frc = 24.0 * (2.0 * irc6 * irc6 - irc6) / RC; /* F(rc) */
    const double vrc = 4.0 * (irc6 * irc6 - irc6);             /* V(rc) */
    double pe = 0.0;
    for (int i = 0; i < p->nloc; i++) {
        const double xi = p->x[i], yi = p->y[i];
        int cx = (int)floor((xi - x0) / wx), cy = (int)floor(yi / wy);
        cx = cx < 0 ? 0 : cx >= d->ncx ? d->ncx - 1 : cx;
        cy = cy < 0 ? 0 : cy >= d->ncy ? d->ncy - 1 : cy;
        double fx = 0.0, fy = 0.0;
        for (int ax = cx - 1; ax <= cx + 1; ax++) {
            if (ax < 0 || ax >= d->ncx)
                continue;
            for (int ay = cy - 1; ay <= cy + 1; ay++) {
                int by = (ay + d->ncy) % d->ncy;
                for (int j = d->head[ax * d->ncy + by]; j >= 0; j = d->next[j]) {
                    if (j == i)
                        continue;
                    double dx = xi - (j < p->nloc ? p->x[j] : p->gx[j - p->nloc]);
                    double dy = yi - (j < p->nloc ? p->y[j] : p->gy[j - p->nloc]);
                    if (dy > 0.5 * L)
                        dy -= L;
                    else if (dy < -0.5 * L)
                        dy += L;
                    double r2 = dx * dx + dy * dy;
                    if (r2 >= rc2)
                        continue;
                    double ir2 = 1.0 / r2, ir6 = ir2 * ir2 * ir2, r = sqrt(r2);
                    double f = 24.0 * (2.0 * ir6 * ir6 - ir6) / r - frc; /* |F_sf| */
                    fx += f * dx / r;
                    fy += f * dy / r;
                    pe += 0.5 * (4.0 * (ir6 * ir6 - ir6) - vrc + (r - RC) * frc);
                }
            }
        }
        p->fx[i] = fx;
        p->fy[i] = fy;
    }
    return pe;
}

static double kinetic(const parts_t *p)
{
    double ke = 0.0;
    for (int i = 0; i < p->nloc; i++)
        ke += 0.5 * (p->vx[i] * p->vx[i] + p->vy[i] * p->vy[i]);
    return ke;
}

int main(int argc, char **argv)
{
    int rank, np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);

    long n = DEF_SIZE, iters = DEF_ITERS;
    int bad = parse_size_iters(argc, argv, &n, 8, 4000, &iters, 1, 100000000L);
    const double L = (double)n / sqrt(DENSITY);
    if (!bad && L / np < RG + SKIN)
        bad = 1;
    if (bad) {
        if (rank == 0)
            fprintf(stderr, "usage: " APP " [SIZE [ITERS]]  (SIZE: particles per side, 8..4000, "
                            "and SIZE >= %.0f at np %d; ITERS >= 1; defaults %d %d)\n",
                    ceil(np * (RG + SKIN) * sqrt(DENSITY)), np, DEF_SIZE, DEF_ITERS);
        MPI_Finalize();
        return 2;
    }
    const long N = n * n;

    dom_t d = {.rank = rank, .np = np, .left = (rank + np - 1) % np, .right = (rank + 1) % np,
               .L = L, .xlo = L * rank / np, .xhi = rank == np - 1 ? L : L * (rank + 1) / np};
    d.ncx = (int)floor((d.xhi - d.xlo + 2.0 * RG) / RC);
    d.ncy = (int)floor(L / RC);
    d.bufcap = 5 * N;
    parts_t p = {.cap = N};
    double *pool = malloc((size_t)N * 11 * sizeof(double));
    double *bufs = malloc((size_t)d.bufcap * 4 * sizeof(double));
    d.head = malloc((size_t)d.ncx * (size_t)d.ncy * sizeof(int));
    d.next = malloc((size_t)N * 3 * sizeof(int));
    if (!pool || !bufs || !d.head || !d.next) {
        fprintf(stderr, APP ": rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    p.x = pool;
    p.y = pool + N;
    p.vx = pool + 2 * N;
    p.vy = pool + 3 * N;
    p.fx = pool + 4 * N;
    p.fy = pool + 5 * N;
    p.id = pool + 6 * N;
    p.gx = pool + 7 * N;
    p.gy = pool + 9 * N;
    d.sl = bufs;
    d.sr = bufs + d.bufcap;
    d.rl = bufs + 2 * d.bufcap;
    d.rr = bufs + 3 * d.bufcap;

    /* lattice and velocities: every rank goes over all ids (the same sums everywhere) */
    const double a = L / (double)n;
    double mvx = 0.0, mvy = 0.0, ke = 0.0;
    for (long k = 0; k < N; k++) {
        mvx += hash01(2 * (uint64_t)k) - 0.5;
        mvy += hash01(2 * (uint64_t)k + 1) - 0.5;
    }
    mvx /= (double)N;
    mvy /= (double)N;
    for (long k = 0; k < N; k++) {
        double vx = hash01(2 * (uint64_t)k) - 0.5 - mvx, vy = hash01(2 * (uint64_t)k + 1) - 0.5 - mvy;
        ke += 0.5 * (vx * vx + vy * vy);
    }
    const double scale = sqrt(T0 * (double)N / ke);
    for (long k = 0; k < N; k++) {
        double x = ((double)(k % n) + 0.5) * a;
        if (x < d.xlo || x >= d.xhi)
            continue;
        int i = p.nloc++;
        p.x[i] = x;
        p.y[i] = ((double)(k / n) + 0.5) * a;
        p.vx[i] = (hash01(2 * (uint64_t)k) - 0.5 - mvx) * scale;
        p.vy[i] = (hash01(2 * (uint64_t)k + 1) - 0.5 - mvy) * scale;
        p.id[i] = (double)k;
    }
    int overflow = ghosts(&d, &p);
    double e_loc[2] = {kinetic(&p), forces(&d, &p)}, e0[2];
    MPI_Allreduce(e_loc, e0, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    const double escale = e0[0] + fabs(e0[1]);
    long ne = iters / M_ENERGY;
    double *ehist = malloc((size_t)(ne > 0 ? ne : 1) * 3 * sizeof(double));
    if (!ehist) {
        fprintf(stderr, APP ": rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }

    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();

    for (long it = 0; it < iters; it++) {
        for (int i = 0; i < p.nloc; i++) {
            p.vx[i] += 0.5 * DT * p.fx[i];
            p.vy[i] += 0.5 * DT * p.fy[i];
            p.x[i] += DT * p.vx[i];
            p.y[i] += DT * p.vy[i];
            if (p.y[i] < 0.0)
                p.y[i] += L;
            else if (p.y[i] >= L)
                p.y[i] -= L;
        }
        if ((it + 1) % K_MIGRATE == 0 && migrate(&d, &p))
            overflow = 1;
        if (ghosts(&d, &p))
            overflow = 1;
        double pe = forces(&d, &p);
        for (int i = 0; i < p.nloc; i++) {
            p.vx[i] += 0.5 * DT * p.fx[i];
            p.vy[i] += 0.5 * DT * p.fy[i];
        }
        if ((it + 1) % M_ENERGY == 0) {
            double loc[3] = {kinetic(&p), pe, (double)p.nloc};
            MPI_Allreduce(loc, &ehist[3 * ((it + 1) / M_ENERGY - 1)], 3, MPI_DOUBLE, MPI_SUM,
                          MPI_COMM_WORLD);
        }
    }

    /* ---- verification */
    double loc[6] = {(double)p.nloc, 0.0, 0.0, 0.0, (double)d.toofar, (double)overflow};
    for (int i = 0; i < p.nloc; i++) {
        loc[1] += p.id[i];
        loc[2] += p.vx[i];
        loc[3] += p.vy[i];
    }
    double glob[6];
    MPI_Allreduce(loc, glob, 6, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    int ok = 1;
    const double idsum = (double)N * (double)(N - 1) / 2.0;
    if (glob[0] != (double)N || glob[1] != idsum) {
        if (rank == 0)
            fprintf(stderr, APP ": %.0f particles with id sum %.0f at the end, expected %ld and %.0f\n",
                    glob[0], glob[1], N, idsum);
        ok = 0;
    }
    if (!(hypot(glob[2], glob[3]) <= 1e-9 * (double)N)) {
        if (rank == 0)
            fprintf(stderr, APP ": total momentum (%.3g, %.3g) is not 0\n", glob[2], glob[3]);
        ok = 0;
    }
    if (glob[4] != 0.0 || glob[5] != 0.0) {
        if (rank == 0)
            fprintf(stderr, APP ": %.0f particle-steps beyond the skin, %.0f buffer overflows\n",
                    glob[4], glob[5]);
        ok = 0;
    }
    for (long k = 0; k < ne; k++) {
        double e = ehist[3 * k] + ehist[3 * k + 1], de = fabs(e - (e0[0] + e0[1])) / escale;
        if (ehist[3 * k + 2] != (double)N || !(de <= E_TOL)) {
            if (rank == 0)
                fprintf(stderr, APP ": step %ld: %.0f particles, energy %.10g (initial %.10g, "
                                "relative change %.3g)\n", (k + 1) * M_ENERGY, ehist[3 * k + 2], e,
                        e0[0] + e0[1], de);
            ok = 0;
            break;
        }
    }
    int all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);

    double elapsed = MPI_Wtime() - t0, tmax = 0.0;
    MPI_Reduce(&elapsed, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        print_result(APP, np, tmax, all_ok);
    free(pool);
    free(bufs);
    free(d.head);
    free(d.next);
    free(ehist);
    MPI_Finalize();
    return all_ok ? 0 : 1;
}
