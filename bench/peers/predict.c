/*
 * The C twins of the prediction bench's programs (bench/ranks/predict.ts and examples/heat.ts),
 * with the same schedules: run under Open MPI for the real time, and under SimGrid (compiled with
 * smpicc, smpirun on a calibrated platform) for SimGrid's prediction of it. Rank 0 prints
 * `span SECONDS`, MPI_Wtime between two barriers (heat: from the first step to the last wait, as
 * heat.ts times itself).
 *   mpicc -O2 -o predict predict.c
 *   mpirun -n N ./predict ring|allreduce|alltoall|heat
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static void ring(void) {
  int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  double token = 0;
  for (int lap = 0; lap < 2000; lap++) {
    if (rank == 0) {
      MPI_Send(&token, 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD);
      MPI_Recv(&token, 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&token, 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(&token, 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD);
    }
  }
}

static void allreduce(void) {
  double x, sum;
  for (int i = 0; i < 5000; i++) {
    x = i;
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
}

static void alltoall(void) {
  const int block = 64 * 1024;
  char *out = calloc((size_t)size, block), *in = calloc((size_t)size, block);
  for (int i = 0; i < 100; i++) MPI_Alltoall(out, block, MPI_BYTE, in, block, MPI_BYTE, MPI_COMM_WORLD);
  free(out);
  free(in);
}

static int block_of(int n, int parts, int index) { return n / parts + (index < n % parts ? 1 : 0); }

/* Jacobi steps on a 256x256 grid split over a 2-D grid of ranks: a halo exchange of eight
 * messages, the step (polling the last step's residual reduction every ~4096 cells), then the
 * reduction's wait; it stops after 200 steps or when the residual is below 1e-4. */
static double heat(void) {
  const int NX = 256, NY = 256, max_iterations = 200;
  const double tolerance = 1e-4, TOP = 100.0;
  int dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2];
  MPI_Comm cart;
  MPI_Dims_create(size, 2, dims);
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  MPI_Cart_coords(cart, rank, 2, coords);
  int rows = block_of(NY, dims[0], coords[0]), cols = block_of(NX, dims[1], coords[1]);
  int above, below, left, right;
  MPI_Cart_shift(cart, 0, 1, &above, &below);
  MPI_Cart_shift(cart, 1, 1, &left, &right);
  int W = cols + 2;
  double *cur = calloc((size_t)(rows + 2) * W, sizeof(double)), *next = calloc((size_t)(rows + 2) * W, sizeof(double));
  for (int j = 1; j <= cols; j++) cur[j] = next[j] = TOP;
  double *left_out = calloc(rows, sizeof(double)), *right_out = calloc(rows, sizeof(double));
  double *left_in = calloc(rows, sizeof(double)), *right_in = calloc(rows, sizeof(double));
  int poll_rows = 4096 / cols > 1 ? 4096 / cols : 1;
  MPI_Request reducing = MPI_REQUEST_NULL;
  double local_max = 0, residual = INFINITY, reduced = 0;
  int iterations = 0;
  double t0 = MPI_Wtime();
  for (;;) {
    int another = iterations < max_iterations;
    if (another) {
      for (int i = 1; i <= rows; i++) {
        left_out[i - 1] = cur[i * W + 1];
        right_out[i - 1] = cur[i * W + cols];
      }
      MPI_Request req[8];
      MPI_Irecv(cur + 1, cols, MPI_DOUBLE, above, 1, cart, &req[0]);
      MPI_Irecv(cur + (rows + 1) * W + 1, cols, MPI_DOUBLE, below, 2, cart, &req[1]);
      MPI_Irecv(left_in, rows, MPI_DOUBLE, left, 3, cart, &req[2]);
      MPI_Irecv(right_in, rows, MPI_DOUBLE, right, 4, cart, &req[3]);
      MPI_Isend(cur + rows * W + 1, cols, MPI_DOUBLE, below, 1, cart, &req[4]);
      MPI_Isend(cur + W + 1, cols, MPI_DOUBLE, above, 2, cart, &req[5]);
      MPI_Isend(right_out, rows, MPI_DOUBLE, right, 3, cart, &req[6]);
      MPI_Isend(left_out, rows, MPI_DOUBLE, left, 4, cart, &req[7]);
      MPI_Waitall(8, req, MPI_STATUSES_IGNORE);
      for (int i = 1; i <= rows; i++) {
        cur[i * W] = left_in[i - 1];
        cur[i * W + cols + 1] = right_in[i - 1];
      }
      double m = 0;
      for (int i = 1; i <= rows; i++) {
        for (int j = 1; j <= cols; j++) {
          int k = i * W + j;
          double v = 0.25 * (cur[k - W] + cur[k + W] + cur[k - 1] + cur[k + 1]);
          double d = fabs(v - cur[k]);
          if (d > m) m = d;
          next[k] = v;
        }
        if (i % poll_rows == 0 && reducing != MPI_REQUEST_NULL) {
          int done;
          MPI_Test(&reducing, &done, MPI_STATUS_IGNORE);
          if (done) reducing = MPI_REQUEST_NULL, residual = reduced;
        }
      }
      local_max = m;
    }
    if (iterations > 0) {
      MPI_Wait(&reducing, MPI_STATUS_IGNORE);
      residual = reduced;
      if (residual < tolerance) break;
    }
    if (!another) break;
    double *t = cur;
    cur = next;
    next = t;
    iterations++;
    static double sendbuf;
    sendbuf = local_max;
    MPI_Iallreduce(&sendbuf, &reduced, 1, MPI_DOUBLE, MPI_MAX, cart, &reducing);
  }
  double elapsed = MPI_Wtime() - t0;
  if (rank == 0) fprintf(stderr, "heat %dx%d: %d iterations, residual %.6e\n", NX, NY, iterations, residual);
  free(cur), free(next), free(left_out), free(right_out), free(left_in), free(right_in);
  MPI_Comm_free(&cart);
  return elapsed;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *kind = argc > 1 ? argv[1] : "ring";
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime(), span;
  if (strcmp(kind, "ring") == 0) ring();
  else if (strcmp(kind, "allreduce") == 0) allreduce();
  else if (strcmp(kind, "alltoall") == 0) alltoall();
  else if (strcmp(kind, "heat") != 0) {
    if (rank == 0) fprintf(stderr, "predict: no program %s (ring, allreduce, alltoall, heat)\n", kind);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (strcmp(kind, "heat") == 0) span = heat();
  else {
    MPI_Barrier(MPI_COMM_WORLD);
    span = MPI_Wtime() - t0;
  }
  if (rank == 0) printf("span %.9f\n", span);
  MPI_Finalize();
  return 0;
}
