/*
 * The calibration sweep of `tsmpi calibrate` (src/calibrate/probe.ts) for an MPI library, with
 * the same experiments and the same statistics: for each size, a ping-pong (half the round trip,
 * mean of 9 batches of at least 25 ms), a stream (seconds per message, from two window lengths so
 * the latency cancels out), the time of one MPI_Isend call and of an MPI_Recv of a message that
 * has already arrived (medians); then a fruitless MPI_Test and MPI_Iprobe. The prediction bench
 * fits these figures as tsmpi's own and writes SimGrid XML from them: SMPI's calibration of the
 * library that the C twins run on.
 *   mpicc -O2 -o calibrate calibrate.c
 *   mpirun -n 2 ./calibrate
 * Output, one JSON line per size: {"bytes","oneWay","streamPeriod","send","recv"}, then
 * {"polls":{"test","iprobe"}}.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCHES 9
#define BATCH_SECONDS 0.025
#define MAX_BYTES (16 << 20)
static const long SIZES[] = {0, 16, 64, 256, 1024, 4096, 16384, 32768, 65536, 131072, 262144, 1048576, 4194304, 16777216};
static int rank, peer;
static char *big, *sink;

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static double median(double *xs, int n) {
  qsort(xs, n, sizeof(double), compare);
  return n % 2 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
}
static double mean(const double *xs, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += xs[i];
  return s / n;
}
/* Rank 0's choice, told to rank 1. */
static int agree(int value) {
  MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return value;
}

static double ping_pong_batch(long bytes, int reps) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int i = 0; i < reps; i++) {
    if (rank == 0) {
      MPI_Send(big, (int)bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
      MPI_Recv(sink, (int)bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(sink, (int)bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(big, (int)bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
    }
  }
  return (MPI_Wtime() - t0) / reps / 2;
}

static double ping_pong(long bytes) {
  ping_pong_batch(bytes, 3);
  double each = ping_pong_batch(bytes, 3);
  double per = 2 * each > 1e-7 ? 2 * each : 1e-7;
  int reps = (int)(BATCH_SECONDS / per) + 1;
  reps = agree(reps < 3 ? 3 : reps > 5000 ? 5000 : reps);
  double times[BATCHES];
  for (int b = 0; b < BATCHES; b++) times[b] = ping_pong_batch(bytes, reps);
  return mean(times, BATCHES);
}

static double stream_once(long bytes, int window) {
  static MPI_Request req[64];
  char ack;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  if (rank == 0) {
    for (int i = 0; i < window; i++) MPI_Isend(big, (int)bytes, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &req[i]);
    MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
    MPI_Recv(&ack, 0, MPI_BYTE, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    for (int i = 0; i < window; i++) MPI_Irecv(sink, (int)bytes, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &req[i]);
    MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
    MPI_Send(&ack, 0, MPI_BYTE, peer, 3, MPI_COMM_WORLD);
  }
  return MPI_Wtime() - t0;
}

static double stream_period(long bytes) {
  long floor = bytes > 65536 ? bytes : 65536;
  int shorter = (int)((8L << 20) / floor);
  shorter = shorter < 2 ? 2 : shorter > 32 ? 32 : shorter;
  double periods[BATCHES];
  stream_once(bytes, shorter);
  for (int b = 0; b < BATCHES; b++) {
    double t1 = stream_once(bytes, shorter), t2 = stream_once(bytes, 2 * shorter);
    periods[b] = t2 > t1 ? (t2 - t1) / shorter : 0;
  }
  return mean(periods, BATCHES);
}

/* Seconds of one MPI_Isend call (rank 0) and of an MPI_Recv of a message already here (rank 1). */
static void overheads(long bytes, double *send, double *recv) {
  static MPI_Request req[32];
  int count = (int)((256L << 10) / (bytes + 64));
  count = count < 1 ? 1 : count > 32 ? 32 : count;
  double sends[BATCHES], recvs[BATCHES];
  for (int b = -1; b < BATCHES; b++) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      double t0 = MPI_Wtime();
      for (int i = 0; i < count; i++) MPI_Isend(big, (int)bytes, MPI_BYTE, peer, 10 + i, MPI_COMM_WORLD, &req[i]);
      double t1 = MPI_Wtime();
      MPI_Waitall(count, req, MPI_STATUSES_IGNORE);
      if (b >= 0) sends[b] = (t1 - t0) / count;
    } else {
      MPI_Probe(peer, 10 + count - 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      double t0 = MPI_Wtime();
      for (int i = 0; i < count; i++) MPI_Recv(sink, (int)bytes, MPI_BYTE, peer, 10 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (b >= 0) recvs[b] = (MPI_Wtime() - t0) / count;
    }
  }
  double r = rank == 1 ? median(recvs, BATCHES) : 0;
  if (rank == 1) MPI_Send(&r, 1, MPI_DOUBLE, peer, 4, MPI_COMM_WORLD);
  else MPI_Recv(&r, 1, MPI_DOUBLE, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  *send = rank == 0 ? median(sends, BATCHES) : 0;
  *recv = r;
}

static void polls(void) {
  const int calls = 20000;
  char one = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    MPI_Recv(&one, 1, MPI_BYTE, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&one, 1, MPI_BYTE, peer, 6, MPI_COMM_WORLD);
    return;
  }
  MPI_Request pending;
  MPI_Irecv(&one, 1, MPI_BYTE, peer, 6, MPI_COMM_WORLD, &pending);
  int done = 0, flag = 0;
  double t0 = MPI_Wtime();
  for (int i = 0; i < calls; i++) MPI_Test(&pending, &done, MPI_STATUS_IGNORE);
  double t1 = MPI_Wtime();
  for (int i = 0; i < calls; i++) MPI_Iprobe(peer, 7, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
  double t2 = MPI_Wtime();
  MPI_Send(&one, 1, MPI_BYTE, peer, 5, MPI_COMM_WORLD);
  MPI_Wait(&pending, MPI_STATUS_IGNORE);
  printf("{\"polls\":{\"test\":%.6e,\"iprobe\":%.6e}}\n", (t1 - t0) / calls, (t2 - t1) / calls);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) fprintf(stderr, "calibrate runs on 2 ranks, not %d\n", size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  peer = 1 - rank;
  big = calloc(MAX_BYTES, 1);
  sink = calloc(MAX_BYTES, 1);
  for (size_t s = 0; s < sizeof SIZES / sizeof SIZES[0]; s++) {
    long bytes = SIZES[s];
    double one_way = ping_pong(bytes), period = stream_period(bytes), send, recv;
    overheads(bytes, &send, &recv);
    if (rank == 0) printf("{\"bytes\":%ld,\"oneWay\":%.6e,\"streamPeriod\":%.6e,\"send\":%.6e,\"recv\":%.6e}\n", bytes, one_way, period, send, recv);
    fflush(stdout);
  }
  polls();
  free(big);
  free(sink);
  MPI_Finalize();
  return 0;
}
