/* namesake: calls a library's own C functions named mpi_comm_size, mpi_send and
 * mpi_allreduce (tests/mpi/namesake_lib.c, as R's Rmpi.so has them) 50 times; checks what
 * they return and receives what they send.  Prints "namesake: ok". */
#include <mpi.h>
#include <stdio.h>

int mpi_comm_size(int which);
int mpi_send(const double *x, int n, int dest);
int mpi_allreduce(double x);

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int bad = mpi_comm_size(0) != np;
    double v[4] = {1, 2, 3, 4};
    for (int i = 0; i < 50 && np > 1; i++) {
        if (r == 0)
            bad |= mpi_send(v, 4, 1) != MPI_SUCCESS;
        else if (r == 1)
            MPI_Recv(v, 4, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        bad |= mpi_allreduce(1) != np;
    }
    bad |= v[3] != 4;
    if (bad)
        MPI_Abort(MPI_COMM_WORLD, 3);
    if (r == 0)
        printf("namesake: ok\n");
    MPI_Finalize();
    return 0;
}
