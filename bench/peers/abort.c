/* Abort peer: rank F writes the wall-clock time (ms since the epoch) to a file, then fails as asked
 * (exit(3) without finalize, or MPI_Abort(5)) while the other ranks wait in a barrier. What the
 * bench measures is how long mpirun takes to end the job after that instant.
 *   mpirun -n N abort <failing-rank> <exit3|abort5> <stamp-file> */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int failing = argc > 1 ? atoi(argv[1]) : 1;
  const char *how = argc > 2 ? argv[2] : "exit3";
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == failing) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    FILE *f = fopen(argv[3], "w");
    fprintf(f, "%.3f\n", now.tv_sec * 1e3 + now.tv_nsec / 1e6);
    fclose(f);
    if (strcmp(how, "abort5") == 0) MPI_Abort(MPI_COMM_WORLD, 5);
    exit(3);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
