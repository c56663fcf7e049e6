/*
 * Point-to-point peer benchmark for Open MPI (and any MPI), the same schedule as
 * bench/ranks/p2p.ts so tsmpi / Open MPI ratios compare like with like.
 *   mpicc -O2 -o p2p p2p.c
 *   mpirun --allow-run-as-root --oversubscribe -n 2 ./p2p pingpong|stream|rate|exchange [sizes...]
 * Output, one line per size: JSON {"bench":..., "bytes":..., ...}.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* BENCH_MIN_TIMED_MS: the timed loop lasts at least this long (as bench/ranks/p2p.ts reads it). */
static double min_timed_seconds(void) {
  const char *ms = getenv("BENCH_MIN_TIMED_MS");
  return ms != NULL ? atof(ms) / 1000 : 0;
}

static void pingpong(int rank, long bytes, char *buf) {
  int iters = bytes >= (1 << 20) ? 50 : 1000, warm = iters / 10 + 1;
  /* With a shortest timed loop: a pass of `iters` round trips first, untimed, whose rate sets the count. */
  int first = min_timed_seconds() > 0 ? -1 : 0;
  double probe_seconds = 0;
  for (int pass = first; pass < 2; pass++) {
    int n = pass == 0 ? warm : iters;
    if (pass == 1 && first < 0) {
      /* As many round trips as last that long at the probe's rate, the same on both ranks. */
      double per = probe_seconds / iters > 1e-9 ? probe_seconds / iters : 1e-9;
      double want = min_timed_seconds() / per;
      int mine = want > iters ? (want < 1e9 ? (int)want + 1 : 1000000000) : iters;
      MPI_Allreduce(&mine, &n, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < n; i++) {
      if (rank == 0) {
        MPI_Send(buf, (int)bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
        MPI_Recv(buf, (int)bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else if (rank == 1) {
        MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, (int)bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
      }
    }
    if (pass == -1) probe_seconds = MPI_Wtime() - t0;
    double us = (MPI_Wtime() - t0) / n / 2 * 1e6;
    if (pass == 1 && rank == 0) printf("{\"bench\":\"pingpong\",\"bytes\":%ld,\"oneWayUs\":%.4f,\"gbps\":%.4f}\n", bytes, us, bytes / us / 1e3);
  }
}

static void stream(int rank, long bytes, char *buf) {
  const int window = 64;
  int windows = bytes >= (16 << 20) ? 5 : bytes >= (1 << 20) ? 20 : 200;
  MPI_Request req[64];
  char ack[4];
  for (int pass = 0; pass < 2; pass++) {
    int n = pass == 0 ? 2 : windows;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int w = 0; w < n; w++) {
      if (rank == 0) {
        for (int i = 0; i < window; i++) MPI_Isend(buf, (int)bytes, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &req[i]);
        MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
        MPI_Recv(ack, 4, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else if (rank == 1) {
        for (int i = 0; i < window; i++) MPI_Irecv(buf, (int)bytes, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &req[i]);
        MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
        MPI_Send(ack, 4, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
      }
    }
    double s = MPI_Wtime() - t0;
    if (pass == 1 && rank == 0) printf("{\"bench\":\"stream\",\"bytes\":%ld,\"gbps\":%.4f}\n", bytes, (double)bytes * window * n / s / 1e9);
  }
}

static void rate(int rank, long bytes, char *buf) {
  const int window = 64, windows = 20000;
  MPI_Request req[64];
  char ack[4];
  for (int pass = 0; pass < 2; pass++) {
    int n = pass == 0 ? 2000 : windows;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int w = 0; w < n; w++) {
      if (rank == 0) {
        for (int i = 0; i < window; i++) MPI_Isend(buf, (int)bytes, MPI_BYTE, 1, 4, MPI_COMM_WORLD, &req[i]);
        MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
        MPI_Recv(ack, 4, MPI_BYTE, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else if (rank == 1) {
        for (int i = 0; i < window; i++) MPI_Irecv(buf, (int)bytes, MPI_BYTE, 0, 4, MPI_COMM_WORLD, &req[i]);
        MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
        MPI_Send(ack, 4, MPI_BYTE, 0, 5, MPI_COMM_WORLD);
      }
    }
    double s = MPI_Wtime() - t0;
    if (pass == 1 && rank == 0) printf("{\"bench\":\"rate\",\"bytes\":%ld,\"msgsPerSec\":%.1f}\n", bytes, (double)window * n / s);
  }
}

/* Both ranks start a send to the other, receive the other's message, then wait for the send:
 * the peer's message often arrives before its receive is posted (an unexpected message). */
static void exchange(int rank, long bytes, char *buf) {
  int iters = bytes >= (64 << 10) ? 2000 : 20000, warm = iters / 10 + 1;
  int peer = 1 - rank;
  char *in = malloc(bytes > 0 ? bytes : 1);
  MPI_Request req;
  for (int pass = 0; pass < 2; pass++) {
    int n = pass == 0 ? warm : iters;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < n; i++) {
      MPI_Isend(buf, (int)bytes, MPI_BYTE, peer, 6, MPI_COMM_WORLD, &req);
      MPI_Recv(in, (int)bytes, MPI_BYTE, peer, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    double us = (MPI_Wtime() - t0) / n * 1e6;
    if (pass == 1 && rank == 0) printf("{\"bench\":\"exchange\",\"bytes\":%ld,\"us\":%.4f}\n", bytes, us);
  }
  free(in);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char *mode = argc > 1 ? argv[1] : "pingpong";
  long max = 16L << 20;
  char *buf = malloc(max);
  memset(buf, 1, max);
  for (int a = 2; a < argc; a++) {
    long bytes = atol(argv[a]);
    if (strcmp(mode, "pingpong") == 0) pingpong(rank, bytes, buf);
    else if (strcmp(mode, "stream") == 0) stream(rank, bytes, buf);
    else if (strcmp(mode, "exchange") == 0) exchange(rank, bytes, buf);
    else rate(rank, bytes, buf);
    fflush(stdout);
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
