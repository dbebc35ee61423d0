/* fptraps [STEPS]: an application that enables floating-point traps before MPI_Init, as
 * MPQC does (feenableexcept: invalid, division by zero, overflow), then runs STEPS steps
 * of computation and an MPI_Allreduce.  Whatever pas2p does inside the process (the
 * signature runtime's XML reading at MPI_Init, its medians and ratios at every call) must
 * neither trap nor change the application's environment: the program checks after
 * MPI_Init, after its loop and after MPI_Finalize that its traps are the ones it set.
 * Prints "fptraps: ok"; exit 1 if not (a trap is SIGFPE). */
#include <fenv.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "spin_for.h"

int main(int argc, char **argv)
{
    const int want = FE_INVALID | FE_DIVBYZERO | FE_OVERFLOW;
    feenableexcept(want);
    MPI_Init(&argc, &argv);
    int steps = argc > 1 ? atoi(argv[1]) : 200, r, bad = fegetexcept() != want;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    double x = 1.0 + r, sum = 0;
    for (int k = 0; k < steps; k++) {
        spin_for(1e-3);
        x = x * 1.0000001 + 1e-9;
        MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    bad |= fegetexcept() != want;
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    MPI_Finalize();
    any |= fegetexcept() != want;
    if (r == 0)
        printf(any ? "fptraps: the floating-point traps changed\n" : "fptraps: ok\n");
    return any;
}
