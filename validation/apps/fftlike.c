/*
 * fftlike — distributed 2-D complex FFTs with the transposes done by MPI_Alltoall on the rows of
 * a 2-D process grid.
 *
 * Pattern: few, long iterations (a spectral code's time steps, a 3-D FFT's pencil transposes):
 * each iteration is heavy local computation, one MPI_Alltoall on a sub-communicator and one
 * MPI_Reduce. The np ranks form a PR x PC grid (MPI_Dims_create(np, 2) -> PC = dims[0] >= PR =
 * dims[1]: np=2 is 1 x 2, np=4 is 2 x 2, np=8 is 2 x 4); MPI_Comm_split makes one communicator per
 * grid row. Each row transforms its own N x N complex array, distributed over the row's PC ranks
 * in blocks of N/PC rows. One iteration: an N-point FFT of every local row, the transpose (pack
 * PC blocks of (N/PC)^2, MPI_Alltoall on the row communicator, unpack transposed), an N-point
 * FFT of every new local row, then the squared norm of the local data is summed on world rank 0
 * by MPI_Reduce. Even iterations are forward transforms, odd ones inverse (scaled by 1/N^2), so
 * after an even number of iterations the data is back where it started, in its first layout.
 *
 *   usage: fftlike [N [ITERS]]     N = array side (power of 2, a multiple of PC), ITERS = even
 *   test size:       fftlike 128 6        (the defaults)
 *   validation size: fftlike 2048 8
 *
 * Verification (can fail; any failure -> "verification = FAILED", exit status 1):
 *   1. Parseval, on world rank 0 after every iteration: the summed squared norm is N^2 times the
 *      initial one after a forward transform and equal to it after an inverse one (relative
 *      1e-10); a lost or misplaced block changes it.
 *   2. round trip: after the last (inverse) iteration every value equals its initial value within
 *      1e-11 (measured: ~1e-15). A misplaced block, a wrong twiddle or a stale buffer shows here;
 *      so does one received value off by 1e-6 (relative) in one iteration.
 *
 * MPI calls, per rank, normal path:
 *   MPI_Init 1, MPI_Comm_rank 1, MPI_Comm_size 1, MPI_Dims_create 1, MPI_Comm_split 1 (world ->
 *   grid rows, key = column: the row rank is the column),
 *   MPI_Alltoall  ITERS   (row communicator, 2 (N/PC)^2 doubles to each of the PC ranks)
 *   MPI_Reduce    ITERS + 2   (setup: initial norm; one per iteration: the norm, SUM, world root
 *                              0; the elapsed time, MAX)
 *   MPI_Allreduce 2   (verification: the round-trip error, MAX; the ok flags, MIN)
 *   MPI_Barrier 1, MPI_Wtime 2, MPI_Comm_free 1, MPI_Finalize 1
 * Per-iteration order: compute, Alltoall, compute, Reduce.
 * Bad arguments: rank 0 prints one usage line on stderr; every rank calls MPI_Finalize, exit 2.
 */
#include <complex.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"

#define APP "fftlike"
#define DEF_N 128
#define DEF_ITERS 6

static double hash01(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

/* the initial value of cell (i, j) of grid row pr's array */
static double complex init_value(int pr, long i, long j, long n)
{
    uint64_t k = ((uint64_t)pr * (uint64_t)n + (uint64_t)i) * (uint64_t)n + (uint64_t)j;
    return (hash01(2 * k) - 0.5) + I * (hash01(2 * k + 1) - 0.5);
}

/* in-place radix-2 FFT of x[0..n): sign -1 forward, +1 inverse (unscaled); w[k] =
 * exp(-2 pi i k / n), k < n/2; rev = bit reversal of log2(n) bits */
static void fft(double complex *x, int n, int sign, const double complex *w, const int *rev)
{
    for (int i = 0; i < n; i++)
        if (i < rev[i]) {
            double complex t = x[i];
            x[i] = x[rev[i]];
            x[rev[i]] = t;
        }
    for (int len = 2; len <= n; len <<= 1) {
        const int half = len >> 1, step = n / len;
        for (int s = 0; s < n; s += len)
            for (int k = 0; k < half; k++) {
                double complex tw = w[k * step];
                if (sign > 0)
                    tw = conj(tw);
                double complex a = x[s + k], b = x[s + k + half] * tw;
                x[s + k] = a + b;
                x[s + k + half] = a - b;
            }
    }
}

static double norm2(const double complex *a, size_t cnt)
{
    double s = 0.0;
    for (size_t i = 0; i < cnt; i++)
        s += creal(a[i]) * creal(a[i]) + cimag(a[i]) * cimag(a[i]);
    return s;
}

static int is_pow2(long n)
{
    return n > 0 && (n & (n - 1)) == 0;
}

int main(int argc, char **argv)
{
    int rank, np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);

    long n = DEF_N, iters = DEF_ITERS;
    int bad = parse_size_iters(argc, argv, &n, 2, 1L << 16, &iters, 2, 1000000L);
    int dims[2] = {0, 0};
    MPI_Dims_create(np, 2, dims);
    const int PC = dims[0], PR = dims[1];
    if (!bad && (!is_pow2(n) || n % PC != 0 || iters % 2 != 0 || n * n / PC > (1L << 28)))
        bad = 1;
    if (bad) {
        if (rank == 0)
            fprintf(stderr, "usage: " APP " [N [ITERS]]  (N: a power of 2, a multiple of %d, "
                            "N*N/%d <= 2^28; ITERS: even, >= 2; defaults %d %d)\n", PC, PC, DEF_N,
                    DEF_ITERS);
        MPI_Finalize();
        return 2;
    }
    const int pr = rank / PC, pc = rank % PC;
    MPI_Comm row;
    MPI_Comm_split(MPI_COMM_WORLD, pr, pc, &row);
    (void)PR;

    const int N = (int)n, b = N / PC;
    const size_t cnt = (size_t)b * (size_t)N;
    double complex *a = malloc(cnt * sizeof(double complex));
    double complex *sbuf = malloc(cnt * sizeof(double complex));
    double complex *rbuf = malloc(cnt * sizeof(double complex));
    double complex *w = malloc((size_t)(N / 2 > 0 ? N / 2 : 1) * sizeof(double complex));
    int *rev = malloc((size_t)N * sizeof(int));
    double *nhist = malloc((size_t)iters * sizeof(double));
    if (!a || !sbuf || !rbuf || !w || !rev || !nhist) {
        fprintf(stderr, APP ": rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    int lg = 0;
    while ((1 << lg) < N)
        lg++;
    for (int i = 0; i < N; i++) {
        int r = 0;
        for (int k = 0; k < lg; k++)
            r |= ((i >> k) & 1) << (lg - 1 - k);
        rev[i] = r;
    }
    const double pi = acos(-1.0);
    for (int k = 0; k < N / 2; k++)
        w[k] = cos(2.0 * pi * k / N) - I * sin(2.0 * pi * k / N);
    for (int i = 0; i < b; i++)
        for (int j = 0; j < N; j++)
            a[(size_t)i * (size_t)N + (size_t)j] = init_value(pr, (long)pc * b + i, j, N);
    double nl = norm2(a, cnt), n0 = 0.0;
    MPI_Reduce(&nl, &n0, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);

    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();

    for (long it = 0; it < iters; it++) {
        const int sign = it % 2 == 0 ? -1 : 1;
        for (int i = 0; i < b; i++)
            fft(a + (size_t)i * (size_t)N, N, sign, w, rev);
        for (int q = 0; q < PC; q++) /* block q: my rows, columns [q b, (q+1) b) */
            for (int r = 0; r < b; r++)
                memcpy(sbuf + ((size_t)q * (size_t)b + (size_t)r) * (size_t)b,
                       a + (size_t)r * (size_t)N + (size_t)q * (size_t)b,
                       (size_t)b * sizeof(double complex));
        MPI_Alltoall(sbuf, 2 * b * b, MPI_DOUBLE, rbuf, 2 * b * b, MPI_DOUBLE, row);
        for (int q = 0; q < PC; q++) /* from q: its rows q b + r, my columns c -> a[c][q b + r] */
            for (int r = 0; r < b; r++) {
                const double complex *src = rbuf + ((size_t)q * (size_t)b + (size_t)r) * (size_t)b;
                for (int c = 0; c < b; c++)
                    a[(size_t)c * (size_t)N + (size_t)q * (size_t)b + (size_t)r] = src[c];
            }
        const double scale = sign > 0 ? 1.0 / ((double)N * (double)N) : 1.0;
        for (int i = 0; i < b; i++) {
            double complex *x = a + (size_t)i * (size_t)N;
            fft(x, N, sign, w, rev);
            if (sign > 0)
                for (int j = 0; j < N; j++)
                    x[j] *= scale;
        }
        nl = norm2(a, cnt);
        MPI_Reduce(&nl, &nhist[it], 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    }

    /* ---- verification */
    int ok = 1;
    if (rank == 0)
        for (long it = 0; it < iters; it++) {
            double expect = it % 2 == 0 ? n0 * (double)N * (double)N : n0;
            if (!(fabs(nhist[it] - expect) <= 1e-10 * expect)) {
                fprintf(stderr, APP ": iteration %ld: norm %.17g, Parseval says %.17g\n", it + 1,
                        nhist[it], expect);
                ok = 0;
                break;
            }
        }
    double err = 0.0, gerr = 0.0;
    for (int i = 0; i < b; i++)
        for (int j = 0; j < N; j++) {
            double e = cabs(a[(size_t)i * (size_t)N + (size_t)j] -
                            init_value(pr, (long)pc * b + i, j, N));
            err = e > err || isnan(e) ? e : err;
        }
    MPI_Allreduce(&err, &gerr, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (!(gerr <= 1e-11)) {
        if (rank == 0)
            fprintf(stderr, APP ": round trip error %.3g after %ld iterations\n", gerr, iters);
        ok = 0;
    }
    int all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);

    double elapsed = MPI_Wtime() - t0, tmax = 0.0;
    MPI_Reduce(&elapsed, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        print_result(APP, np, tmax, all_ok);
    MPI_Comm_free(&row);
    free(a);
    free(sbuf);
    free(rbuf);
    free(w);
    free(rev);
    free(nhist);
    MPI_Finalize();
    return all_ok ? 0 : 1;
}
