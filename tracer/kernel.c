/* The replay compute kernel and its calibration (pas2p_kernel.h). */
#define _POSIX_C_SOURCE 200809L
#include "pas2p_kernel.h"

#include <time.h>

#define LANES 8
#define ROUNDS 64 /* LANES x ROUNDS multiply-adds per block */
_Static_assert(LANES * ROUNDS * 2 == (int)PAS2P_KERNEL_FLOPS_PER_BLOCK, "flops per block");

double pas2p_kernel_run(uint64_t blocks, double seed)
{
    double x[LANES];
    for (int k = 0; k < LANES; k++)
        x[k] = seed + k;
    for (uint64_t b = 0; b < blocks; b++)
        for (int i = 0; i < ROUNDS; i++)
            for (int k = 0; k < LANES; k++)
                x[k] = x[k] * 0.999999999 + 1e-9;
    double s = 0;
    for (int k = 0; k < LANES; k++)
        s += x[k];
    return s;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double pas2p_kernel_calibrate(double seconds)
{
    volatile double sink = 0;
    uint64_t done = 0, chunk = 256;
    double t0 = now(), t = t0;
    while (t - t0 < seconds) {
        sink += pas2p_kernel_run(chunk, sink);
        done += chunk;
        t = now();
    }
    (void)sink;
    return t > t0 ? (double)done / (t - t0) : 0;
}
