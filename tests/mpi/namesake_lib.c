/* A C library that, like R's Rmpi.so, names its own functions after MPI calls in lower case
 * (Rmpi's .Call entry points are mpi_comm_size, mpi_send, mpi_allreduce ...), the names of
 * MPI's Fortran bindings too.  tests/mpi/namesake.c calls them under pas2p trace: a
 * preloaded libpas2p must not take these calls (tests/cmake/tracer.cmake, namesake_trace). */
#include <mpi.h>

int mpi_comm_size(int which)
{
    int n = -1;
    MPI_Comm_size(which == 0 ? MPI_COMM_WORLD : MPI_COMM_SELF, &n);
    return n;
}

int mpi_send(const double *x, int n, int dest)
{
    return MPI_Send(x, n, MPI_DOUBLE, dest, 7, MPI_COMM_WORLD);
}

int mpi_allreduce(double x)
{
    double y = 0;
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return (int)y;
}
