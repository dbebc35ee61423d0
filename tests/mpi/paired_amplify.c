/* One phase (Sendrecv x2 + Allreduce) per iteration; its compute is 0.1 ms in the first 8
   iterations and HEAVY ms (default 10) afterwards (wall-clock spin, so CPU load does not
   stretch it).  predict paired the target's occurrences 2-4 (0.1 ms ones) with the base's,
   and multiplied their ratio onto the base MEAN (~10 ms): a few hundred microseconds of
   jitter on the short occurrences became a PET many times the run (XMDS2, ADIOS).  It now
   pairs the occurrences whose base time is typical of the phase, awaiting them up to twice
   its budget (test predict_untypical_pairs; signature/pas2p_times.h, pas2p_times_pair).
   usage: paired_amplify [ITERATIONS [HEAVY_MS]] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
static double spin(double sec) { double t0 = MPI_Wtime(), x = 0; while (MPI_Wtime() - t0 < sec) x += 1e-9; return x; }
int main(int argc, char **argv) {
  int r, n, it = argc > 1 ? atoi(argv[1]) : 200;
  double heavy = argc > 2 ? atof(argv[2]) / 1000 : 0.010;
  MPI_Init(&argc, &argv); MPI_Comm_rank(MPI_COMM_WORLD, &r); MPI_Comm_size(MPI_COMM_WORLD, &n);
  int p = (r + 1) % n, q = (r + n - 1) % n; double a = r, b, s = 0, g = 0;
  for (int i = 0; i < it; i++) {
    s += spin(i < 8 ? 0.0001 : heavy);
    MPI_Sendrecv(&a, 1, MPI_DOUBLE, p, 1, &b, 1, MPI_DOUBLE, q, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&a, 1, MPI_DOUBLE, q, 2, &b, 1, MPI_DOUBLE, p, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  if (r == 0) printf("done %g\n", g);
  MPI_Finalize(); return 0;
}
