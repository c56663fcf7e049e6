/*
 * Send-modes peer for Open MPI, the schedule of bench/ranks/modes.ts: on 2 ranks the one-way
 * latency (half a ping-pong) of MPI_Send, MPI_Ssend, MPI_Bsend (through an attached buffer),
 * MPI_Rsend (the receive is posted first, as the ready mode requires) and MPI_Send received with
 * MPI_Mprobe + MPI_Mrecv, per size; then on every rank the microseconds per communicator creation
 * and free (MPI_Comm_dup, MPI_Comm_idup + MPI_Wait, MPI_Comm_split, MPI_Comm_create,
 * MPI_Comm_create_group, MPI_Comm_split_type SHARED).
 *   mpirun -n N ./modes <bytes>...     one JSON line per figure
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { SEND, SSEND, BSEND, RSEND, MPROBE, MODES };
static const char *names[MODES] = {"send", "ssend", "bsend", "rsend", "mprobe"};

static void send_by(int mode, char *data, int bytes, int to) {
  if (mode == SSEND) MPI_Ssend(data, bytes, MPI_BYTE, to, 0, MPI_COMM_WORLD);
  else if (mode == BSEND) MPI_Bsend(data, bytes, MPI_BYTE, to, 0, MPI_COMM_WORLD);
  else if (mode == RSEND) MPI_Rsend(data, bytes, MPI_BYTE, to, 0, MPI_COMM_WORLD);
  else MPI_Send(data, bytes, MPI_BYTE, to, 0, MPI_COMM_WORLD);
}

static void recv_by(int mode, char *buffer, int bytes, int from) {
  if (mode == MPROBE) {
    MPI_Message message;
    MPI_Mprobe(from, 0, MPI_COMM_WORLD, &message, MPI_STATUS_IGNORE);
    MPI_Mrecv(buffer, bytes, MPI_BYTE, &message, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(buffer, bytes, MPI_BYTE, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long most = 1;
  for (int a = 1; a < argc; a++) if (atol(argv[a]) > most) most = atol(argv[a]);
  char *out = malloc(most), *in = malloc(most);
  int attached = 2 * (int)(most + MPI_BSEND_OVERHEAD);
  char *buffer = malloc(attached);
  MPI_Buffer_attach(buffer, attached);
  MPI_Group group;
  MPI_Comm_group(MPI_COMM_WORLD, &group);
  for (int report = 0; report < 2; report++) {
    if (size == 2) {
      for (int a = 1; a < argc; a++) {
        int bytes = atoi(argv[a]);
        int iters = bytes >= (64 << 10) ? 500 : 20000;
        for (int mode = 0; mode < MODES; mode++) {
          int peer = 1 - rank;
          MPI_Request pre;
          int warm = iters / 10;
          double t0 = 0;
          MPI_Barrier(MPI_COMM_WORLD);
          for (int i = -warm; i < iters; i++) {
            if (i == 0) t0 = MPI_Wtime();
            if (mode == RSEND) {
              /* The ready mode: the receive is posted before the peer's send can start. */
              MPI_Irecv(in, bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &pre);
              MPI_Barrier(MPI_COMM_WORLD);
              if (rank == 0) {
                send_by(mode, out, bytes, peer);
                MPI_Wait(&pre, MPI_STATUS_IGNORE);
              } else {
                MPI_Wait(&pre, MPI_STATUS_IGNORE);
                send_by(mode, out, bytes, peer);
              }
              continue;
            }
            if (rank == 0) {
              send_by(mode, out, bytes, peer);
              recv_by(mode, in, bytes, peer);
            } else {
              recv_by(mode, in, bytes, peer);
              send_by(mode, out, bytes, peer);
            }
          }
          double us = (MPI_Wtime() - t0) / iters / 2 * 1e6;
          if (report && rank == 0) {
            printf("{\"bench\":\"%s\",\"bytes\":%d,\"us\":%.4f}\n", names[mode], bytes, us);
            fflush(stdout);
          }
        }
      }
    }
    const char *creations[] = {"dup", "idup", "split", "create", "createGroup", "splitType"};
    for (int c = 0; c < 6; c++) {
      int iters = 200;
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      for (int i = 0; i < iters; i++) {
        MPI_Comm made = MPI_COMM_NULL;
        MPI_Request request;
        if (c == 0) MPI_Comm_dup(MPI_COMM_WORLD, &made);
        else if (c == 1) {
          MPI_Comm_idup(MPI_COMM_WORLD, &made, &request);
          MPI_Wait(&request, MPI_STATUS_IGNORE);
        } else if (c == 2) MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &made);
        else if (c == 3) MPI_Comm_create(MPI_COMM_WORLD, group, &made);
        else if (c == 4) MPI_Comm_create_group(MPI_COMM_WORLD, group, 0, &made);
        else MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &made);
        if (made != MPI_COMM_NULL) MPI_Comm_free(&made);
      }
      double us = (MPI_Wtime() - t0) / iters * 1e6;
      if (report && rank == 0) {
        printf("{\"bench\":\"%s\",\"us\":%.4f}\n", creations[c], us);
        fflush(stdout);
      }
    }
  }
  int detached_size;
  MPI_Buffer_detach(&buffer, &detached_size);
  MPI_Group_free(&group);
  free(buffer);
  free(out);
  free(in);
  MPI_Finalize();
  return 0;
}
