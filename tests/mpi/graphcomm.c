/* graphcomm N: a ring over two graph communicators (MPI_Dist_graph_create_adjacent and
 * MPI_Graph_create) beside a communicator of the same ranks from MPI_Comm_create_group.
 * N iterations of an MPI_Allreduce on the latter, an MPI_Sendrecv on each graph
 * communicator and an MPI_Neighbor_allgather (traced as an alltoallv's per-rank counts); checked.
 * Each communicator must get an id of its own, from its creation event
 * (tests/cmake/tracer.cmake: graphcomm). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np, n = argc > 1 ? atoi(argv[1]) : 20;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Group g;
    MPI_Comm_group(MPI_COMM_WORLD, &g);
    MPI_Comm all, dist, graph;
    MPI_Comm_create_group(MPI_COMM_WORLD, g, 7, &all);
    int nb = (rank + 1) % np, pv = (rank + np - 1) % np, w[1] = {1};
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &pv, w, 1, &nb, w, MPI_INFO_NULL, 0, &dist);
    int *index = malloc(sizeof(int) * (size_t)np), *edges = malloc(sizeof(int) * (size_t)np);
    for (int i = 0; i < np; i++) {
        index[i] = i + 1;
        edges[i] = (i + 1) % np;
    }
    MPI_Graph_create(MPI_COMM_WORLD, np, index, edges, 0, &graph);
    long bad = 0;
    for (int it = 0; it < n; it++) {
        double x = it, y;
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, all);
        bad += y != (double)it * np;
        int s = it * np + rank, r = -1;
        MPI_Sendrecv(&s, 1, MPI_INT, nb, 0, &r, 1, MPI_INT, pv, 0, dist, MPI_STATUS_IGNORE);
        bad += r != it * np + pv;
        MPI_Sendrecv(&s, 1, MPI_INT, nb, 1, &r, 1, MPI_INT, pv, 1, graph, MPI_STATUS_IGNORE);
        bad += r != it * np + pv;
        MPI_Neighbor_allgather(&s, 1, MPI_INT, &r, 1, MPI_INT, dist); /* from its one source */
        bad += r != it * np + pv;
    }
    MPI_Comm_free(&all);
    MPI_Comm_free(&dist);
    MPI_Comm_free(&graph);
    MPI_Group_free(&g);
    free(index);
    free(edges);
    if (rank == 0)
        printf("graphcomm: %s\n", bad ? "FAILED" : "ok");
    MPI_Finalize();
    return bad != 0;
}
