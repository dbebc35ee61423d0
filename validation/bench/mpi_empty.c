/* An MPI program that does nothing: MPI_Init and MPI_Finalize.  Its wall time under mpirun
 * is the launch time the benchmarks add to AET: the part of any run that the AET
 * (MPI_Init returning -> MPI_Finalize called) leaves out. */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Finalize();
    return 0;
}
