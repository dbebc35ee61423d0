/* The replay compute kernel: what `pas2p replay --compute=kernel` runs for a `compute S`
 * action on the target.
 *
 * The amount is set on the base machine: libpas2p measures, at the end of every traced
 * run, how many kernel blocks per second each rank completes there (all ranks at once, so
 * with the same sharing of cores the application had; the rate goes into the manifest and
 * the signature).  The replay of S base seconds then runs S x that rate blocks, which take S
 * on the base and whatever the target's CPU needs elsewhere.
 *
 * A block is 512 independent multiply-adds on registers: a compute-bound, cache-resident
 * code.  It follows the target's core speed (clock, pipeline), not its memory system: an
 * application bound by memory bandwidth or by cache misses will scale differently.
 *
 * The kernel is compiled with fixed flags (-O2, no sanitizers) wherever it is linked, so the
 * base calibration and the target replay execute the same instructions. */
#ifndef PAS2P_KERNEL_H
#define PAS2P_KERNEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Floating-point operations in one block (512 multiply-adds, counted as 2 each): the unit
 * in which platform files written by pas2p's tools state a host's speed, so that a speed
 * measured with this kernel and `--base-speed` agree. */
#define PAS2P_KERNEL_FLOPS_PER_BLOCK 1024.0

/* Runs `blocks` blocks; the result only keeps the work from being optimised away. */
double pas2p_kernel_run(uint64_t blocks, double seed);

/* Blocks per second on this core, measured over `seconds` of wall time (CLOCK_MONOTONIC). */
double pas2p_kernel_calibrate(double seconds);

#ifdef __cplusplus
}
#endif
#endif
