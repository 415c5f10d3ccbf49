/* pingpong.c: what the cost model of docs/multihost.md needs from a network, measured with MPI.
 *   1. one-way time T(n) between ranks 0 and 1 for n = 8 B .. 64 KiB (half a round trip), and
 *      from it the model T(n) = alpha + n / beta: the latency alpha = T(8 B), and the bandwidth
 *      beta = the slope between 16 and 64 KiB (a least-squares line over all sizes is pulled
 *      about by a shaped link's burst, which lets the first few KiB through at once);
 *   2. the time of the collective lenet-mpi runs once per training step: MPI_Allreduce of
 *      2343 + 1 floats (the gradient and the loss) over all ranks.
 * Unlike backend_mpi/pingpong.cpp (up to 4 MiB, a fixed number of calls), each point here takes
 * a fixed time, so that a link shaped to 10 Mbit/s is measured in seconds, not hours.
 * run_scripts/bandwidth_sweep.sh compiles it with mpicc and runs it on multihost.sh's hosts.
 *
 * Usage: mpirun -np P pingpong [SECONDS_PER_POINT]      (P >= 2; default 0.5 s per point)
 * Prints a table, then one "key = value" line per figure for scripts. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { kBlocks = 5, kParams = 2343 };

static int rank;

/* The two operations timed, in the form seconds_per_call takes. */
static void round_trip(void* buf, int n) {
  if (rank == 0) {
    MPI_Send(buf, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
    MPI_Recv(buf, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (rank == 1) {
    MPI_Recv(buf, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(buf, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
  }
}

static void allreduce(void* v, int n) {
  (void)n; /* always lenet-mpi's message */
  MPI_Allreduce(MPI_IN_PLACE, v, kParams + 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}

static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* Seconds per call of op(arg, n): the median of kBlocks blocks, each the mean over as many
 * calls as fill budget / kBlocks seconds. The count is found by doubling until a trial takes a
 * quarter of that, so one slow call (a busy machine) does not decide it. Rank 0 decides for
 * everyone: every rank must make the same number of calls. */
static double seconds_per_call(void (*op)(void*, int), void* arg, int n, double budget) {
  const double block = budget / kBlocks;
  op(arg, n); /* warm-up: connections, buffers */
  int calls = 1, done = 0;
  double t0, elapsed;
  while (!done) {
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (int i = 0; i < calls; ++i)
      op(arg, n);
    elapsed = MPI_Wtime() - t0;
    done = elapsed >= block / 4 || calls >= (1 << 20);
    MPI_Bcast(&done, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!done) calls *= 2;
  }
  MPI_Bcast(&elapsed, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  calls = (int)(calls * block / elapsed) + 1;
  double blocks[kBlocks];
  for (int b = 0; b < kBlocks; ++b) {
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (int i = 0; i < calls; ++i)
      op(arg, n);
    blocks[b] = (MPI_Wtime() - t0) / calls;
  }
  qsort(blocks, kBlocks, sizeof blocks[0], by_value);
  return blocks[kBlocks / 2];
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int ranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const double budget = argc > 1 ? atof(argv[1]) : 0.5;
  if (ranks < 2 || budget <= 0) {
    if (rank == 0) fprintf(stderr, "usage: mpirun -np P pingpong [SECONDS_PER_POINT], P >= 2\n");
    MPI_Finalize();
    return 2;
  }

  enum { kSizes = 6 };
  const int sizes[kSizes] = {8, 64, 512, 4096, 16384, 65536};
  char* buf = calloc(65536, 1);
  double t[kSizes];
  if (rank == 0) printf(" ping-pong 0 <-> 1   bytes   one way (us)      MB/s\n");
  for (int k = 0; k < kSizes; ++k) {
    t[k] = seconds_per_call(round_trip, buf, sizes[k], budget) / 2;
    if (rank == 0) printf(" %25d %14.2f %9.2f\n", sizes[k], 1e6 * t[k], sizes[k] / t[k] / 1e6);
  }
  const double alpha = t[0];
  const double dt = t[kSizes - 1] - t[kSizes - 2]; /* noise can make it <= 0: then the mean */
  const double beta =
      dt > 0 ? (sizes[kSizes - 1] - sizes[kSizes - 2]) / dt : sizes[kSizes - 1] / t[kSizes - 1];

  float* v = calloc(kParams + 1, sizeof(float));
  const double t_allreduce = seconds_per_call(allreduce, v, 0, budget);
  if (rank == 0) {
    printf("\nranks = %d\n", ranks);
    printf("alpha_us = %.3f\n", 1e6 * alpha);
    printf("beta_MBps = %.3f\n", beta / 1e6);
    printf("allreduce_bytes = %d\n", (int)((kParams + 1) * sizeof(float)));
    printf("allreduce_us = %.3f\n", 1e6 * t_allreduce);
  }
  free(v);
  free(buf);
  MPI_Finalize();
  return 0;
}
