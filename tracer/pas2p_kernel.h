/* The replay compute kernel: what `pas2p replay --compute=kernel` runs for a `compute S`
 * action on the target.
 *
 * The amount is set on the base machine: libpas2p measures, at the end of every traced
 * run, how many kernel blocks per second each rank's computation could do there, and writes
 * it into the manifest (`kernel_rate`) and the signature.  That rate is the core's speed,
 * measured in the thread's CPU time, times the share of a core the application's own
 * computation had during the run (`compute_share`: CPU time over wall time of sampled
 * compute intervals, runtime.c).  The replay of S base seconds runs S x that rate blocks,
 * which take S on the base when the replay's computation gets the same share, and whatever
 * the target's CPU needs elsewhere.  With one rank per core the share is ~1.  With more
 * ranks than cores it follows the application: ranks that all compute at once get about a
 * core each divided by the ranks per core, a pipeline whose stages take turns gets nearly a
 * whole core (measured, np 4 on 2 cores: stencil2d 0.53-0.59, cartsweep 0.99-1.0); a
 * calibration with every rank computing at once, as before, credited the pipeline with
 * half its work.  What a rank's computation spent blocked off the CPU by its own doing (I/O,
 * a child process, sleep: `compute_blocked`, neither its share of a core nor waiting for
 * one) is not kernel work: the replay waits that share of each computation out as time.
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

/* Blocks per second of this thread's CPU time (CLOCK_THREAD_CPUTIME_ID), measured over
 * `seconds` of it: the core's speed, however many other processes share the core. */
double pas2p_kernel_calibrate(double seconds);

#ifdef __cplusplus
}
#endif
#endif
