/*
 * One-sided latency peer for Open MPI, the schedule of bench/ranks/rma.ts: rank 0 holds a shared
 * lock on rank 1's window and times put + flush (and get + flush) per size; rank 1 waits in a
 * barrier meanwhile (its progress serves the window where the transport needs it).
 *   mpirun -n 2 ./rma <bytes>...     one JSON line per operation and size
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long most = 1;
  for (int a = 1; a < argc; a++) if (atol(argv[a]) > most) most = atol(argv[a]);
  char *base, *local = malloc(most);
  MPI_Win win;
  MPI_Win_allocate(most, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  for (int a = 1; a < argc; a++) {
    long bytes = atol(argv[a]);
    int iters = bytes >= (1 << 20) ? 50 : 2000;
    for (int op = 0; op < 2; op++) {
      MPI_Barrier(MPI_COMM_WORLD);
      if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        double t0 = 0;
        for (int i = 0; i < iters + iters / 10; i++) {
          if (i == iters / 10) t0 = MPI_Wtime();
          if (op == 0) MPI_Put(local, (int)bytes, MPI_BYTE, 1, 0, (int)bytes, MPI_BYTE, win);
          else MPI_Get(local, (int)bytes, MPI_BYTE, 1, 0, (int)bytes, MPI_BYTE, win);
          MPI_Win_flush(1, win);
        }
        double us = (MPI_Wtime() - t0) / iters * 1e6;
        MPI_Win_unlock(1, win);
        printf("{\"bench\":\"%s\",\"bytes\":%ld,\"us\":%.4f}\n", op == 0 ? "put" : "get", bytes, us);
        fflush(stdout);
      }
      MPI_Barrier(MPI_COMM_WORLD);
    }
  }
  MPI_Win_free(&win);
  free(local);
  MPI_Finalize();
  return 0;
}
