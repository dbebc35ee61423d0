/* The replay compute kernel and its calibration (pas2p_kernel.h). */
#define _POSIX_C_SOURCE 200809L
#include "pas2p_kernel.h"

#include <time.h>

#define LANES 8
#define ROUNDS 64 /* LANES x ROUNDS multiply-adds per block */
_Static_assert(LANES * ROUNDS * 2 == (int)PAS2P_KERNEL_FLOPS_PER_BLOCK, "flops per block");

/* Eight named lanes, not an array: the compiler keeps them in registers.  An array lived
 * on the stack, and its loads and stores made the speed depend on where the stack was
 * (measured: half the speed at MPI_Finalize of what the same code did in main). */
#define STEP(v) v = v * 0.999999999 + 1e-9
double pas2p_kernel_run(uint64_t blocks, double seed)
{
    double x0 = seed, x1 = seed + 1, x2 = seed + 2, x3 = seed + 3, x4 = seed + 4, x5 = seed + 5,
           x6 = seed + 6, x7 = seed + 7;
    for (uint64_t b = 0; b < blocks; b++)
        for (int i = 0; i < ROUNDS; i++) {
            STEP(x0); STEP(x1); STEP(x2); STEP(x3); STEP(x4); STEP(x5); STEP(x6); STEP(x7);
        }
    return x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
}

/* the calling thread's CPU time: what it computed, whoever else shared the core */
static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double pas2p_kernel_calibrate(double seconds)
{
    volatile double sink = 0;
    uint64_t done = 0, chunk = 1024; /* ~0.2 ms a chunk: the clock read is a system call */
    double t0 = cpu_now(), t = t0;
    while (t - t0 < seconds) {
        sink += pas2p_kernel_run(chunk, sink);
        done += chunk;
        t = cpu_now();
    }
    (void)sink;
    return t > t0 ? (double)done / (t - t0) : 0;
}
