/* spin_for(s): busy computation for s seconds of wall time (the test subjects' work). */
#ifndef SPIN_FOR_H
#define SPIN_FOR_H
#include <time.h>

static inline void spin_for(double s)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec) < s);
}
#endif
