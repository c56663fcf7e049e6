/*
 * Collective peer benchmark: time per call of barrier, bcast, allreduce (sum of doubles),
 * allgather, alltoall and reduce_scatter_block (sum of doubles), the same schedule as
 * bench/ranks/collectives.ts.
 *   mpirun --allow-run-as-root --oversubscribe -n N ./coll [bytes...]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double timed(int which, long bytes, double *a, double *b, int size) {
  int count = (int)(bytes / 8) > 0 ? (int)(bytes / 8) : 1;
  int iters = bytes >= (1 << 20) ? 100 : bytes >= (64 << 10) ? 1000 : 20000;
  /* BENCH_MIN_TIMED_MS: the timed loop lasts at least this long (as bench/ranks/collectives.ts reads it). */
  const char *min_ms = getenv("BENCH_MIN_TIMED_MS");
  double min_seconds = min_ms != NULL ? atof(min_ms) / 1000 : 0, warm_seconds = 0;
  for (int pass = 0; pass < 2; pass++) {
    int n = pass == 0 ? iters / 10 + 1 : iters;
    if (pass == 1 && min_seconds > 0) {
      /* As many calls as last that long at the warm pass's rate, the same on every rank. */
      double per = warm_seconds / (iters / 10 + 1) > 1e-9 ? warm_seconds / (iters / 10 + 1) : 1e-9;
      double want = min_seconds / per;
      int mine = want > iters ? (want < 1e9 ? (int)want + 1 : 1000000000) : iters;
      MPI_Allreduce(&mine, &n, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < n; i++) {
      switch (which) {
        case 0: MPI_Barrier(MPI_COMM_WORLD); break;
        case 1: MPI_Bcast(a, count, MPI_DOUBLE, 0, MPI_COMM_WORLD); break;
        case 2: MPI_Allreduce(a, b, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); break;
        case 3: MPI_Allgather(a, count / size > 0 ? count / size : 1, MPI_DOUBLE, b, count / size > 0 ? count / size : 1, MPI_DOUBLE, MPI_COMM_WORLD); break;
        case 4: MPI_Alltoall(a, count / size > 0 ? count / size : 1, MPI_DOUBLE, b, count / size > 0 ? count / size : 1, MPI_DOUBLE, MPI_COMM_WORLD); break;
        case 5: MPI_Reduce_scatter_block(a, b, count / size > 0 ? count / size : 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); break;
      }
    }
    if (pass == 0) warm_seconds = MPI_Wtime() - t0;
    double us = (MPI_Wtime() - t0) / n * 1e6;
    double worst;
    MPI_Allreduce(&us, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (pass == 1) return worst;
  }
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *names[] = {"barrier", "bcast", "allreduce", "allgather", "alltoall", "reducescatter"};
  long max = 8L << 20;
  double *a = malloc(max * 2), *b = malloc(max * 2);
  memset(a, 0, max * 2);
  for (int arg = 1; arg < argc; arg++) {
    long bytes = atol(argv[arg]);
    for (int w = 0; w < 6; w++) {
      if (w == 0 && arg > 1) continue;
      double us = timed(w, bytes, a, b, size);
      if (rank == 0) printf("{\"bench\":\"collective\",\"op\":\"%s\",\"bytes\":%ld,\"ranks\":%d,\"us\":%.3f}\n", names[w], w == 0 ? 0 : bytes, size, us);
      fflush(stdout);
    }
  }
  MPI_Finalize();
  return 0;
}
