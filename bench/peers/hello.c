/* Startup peer: MPI_Init, a barrier, MPI_Finalize (what "N ranks ready" costs Open MPI). */
#include <mpi.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
