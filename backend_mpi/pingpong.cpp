// lenet-mpi-pingpong: measures what the cost model of docs/strategies.md needs.
//   1. ping-pong between ranks 0 and 1: one-way time T(n) for messages of n bytes, and the
//      least-squares fit T(n) = alpha + n / beta over 8 B .. 64 KiB (lenet-mpi's sizes);
//   2. the collectives lenet-mpi runs once per step, at its sizes, beside the model's guess:
//      MPI_Allreduce of 2343 + 1 floats (recursive doubling: log2(P) (alpha + n / beta)) and
//      MPI_Allgatherv of B/16 chunk rows (ring: (P - 1) alpha + (P - 1) / P * N / beta).
// Usage: mpirun -np P lenet-mpi-pingpong        (P >= 2 for the ping-pong; any P for the rest)
// Each call is timed on its own, on rank 0. The median is what the protocol costs; the mean
// adds the rare calls that waited for a rank the operating system had descheduled, which is
// what training pays on a busy machine.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <numeric>
#include <vector>

#include "../common/gradient.hpp"
#include "mpi_backend.hpp"

namespace {

struct Seconds {
  double median, mean;
};

// `calls` calls of `op` after a warm-up, each timed; all ranks start together.
Seconds time_calls(int calls, const std::function<void()>& op) {
  std::vector<double> t(calls);
  for (int i = 0; i < 10; ++i)
    op();  // warm-up: connections, buffers
  MPI_Barrier(MPI_COMM_WORLD);
  for (double& s : t) {
    const double t0 = MPI_Wtime();
    op();
    s = MPI_Wtime() - t0;
  }
  const double mean = std::accumulate(t.begin(), t.end(), 0.0) / calls;
  std::nth_element(t.begin(), t.begin() + calls / 2, t.end());
  return {t[calls / 2], mean};
}

// One-way seconds for n bytes between ranks 0 and 1: half a round trip.
Seconds one_way(int rank, int n) {
  std::vector<char> buf(n);
  const Seconds round_trip = time_calls(n <= (1 << 16) ? 2000 : 200, [&] {
    if (rank == 0) {
      MPI_Send(buf.data(), n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(buf.data(), n, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(buf.data(), n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf.data(), n, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
  });
  return {round_trip.median / 2, round_trip.mean / 2};
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const bool root = rank == 0;
  if (root) std::printf("lenet-mpi-pingpong: %d ranks, times in microseconds\n", ranks);

  // 1. Latency and bandwidth, fitted to the medians. With one rank: alpha = 0, beta = infinity.
  double alpha = 0, beta = INFINITY;
  if (ranks >= 2) {
    if (root)
      std::printf("\n ping-pong 0 <-> 1    bytes  one way: median     mean   MB/s (median)\n");
    double sn = 0, st = 0, snn = 0, snt = 0, points = 0;  // sums for the least-squares fit
    for (int n = 8; n <= (1 << 22); n *= 4) {
      const Seconds t = one_way(rank, n);
      if (root) {
        std::printf(" %25d %16.2f %8.2f %8.0f\n", n, 1e6 * t.median, 1e6 * t.mean,
                    n / t.median / 1e6);
      }
      if (n <= (1 << 16)) {
        sn += n, st += t.median, snn += double(n) * n, snt += n * t.median, ++points;
      }
    }
    const double slope = (points * snt - sn * st) / (points * snn - sn * sn);
    alpha = (st - slope * sn) / points;
    beta = 1 / slope;
    if (root) {
      std::printf("\n alpha (latency)   = %.2f us\n", 1e6 * alpha);
      std::printf(
          " beta  (bandwidth) = %.2f GB/s   (T(n) = alpha + n / beta fitted for n <= 64 KiB)\n",
          beta / 1e9);
    }
  }

  // 2. lenet-mpi's collectives at its sizes, beside the model's guess.
  if (root)
    std::printf("\n collective, once per step                       median     mean    model\n");
  const auto report = [&](const char* what, const Seconds& t, double model) {
    if (root)
      std::printf(" %-44s %9.2f %8.2f %8.2f\n", what, 1e6 * t.median, 1e6 * t.mean, 1e6 * model);
  };
  const int log2p = static_cast<int>(std::ceil(std::log2(ranks)));
  std::vector<float> message(lenet::kParamCount + 1, 1.0f);
  const double n = message.size() * sizeof(float);
  const Seconds allreduce = time_calls(2000, [&] {
    MPI_Allreduce(MPI_IN_PLACE, message.data(), static_cast<int>(message.size()), MPI_FLOAT,
                  MPI_SUM, MPI_COMM_WORLD);
  });
  report("MPI_Allreduce, 9376 B (allreduce mode)", allreduce, log2p * (alpha + n / beta));
  const int row = sizeof(lenet::MpiBackend::ChunkSum);
  for (int batch : {32, 128}) {
    const int rows = (batch + lenet::kChunk - 1) / lenet::kChunk;
    std::vector<char> buf(static_cast<size_t>(rows) * row);
    std::vector<int> counts(ranks), displs(ranks);
    for (int r = 0; r < ranks; ++r) {
      const lenet::Range mine = lenet::share(rows, ranks, r);
      counts[r] = mine.size() * row;
      displs[r] = mine.begin * row;
    }
    const Seconds gather = time_calls(2000, [&] {
      MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf.data(), counts.data(), displs.data(),
                     MPI_BYTE, MPI_COMM_WORLD);
    });
    char what[64];
    std::snprintf(what, sizeof what, "MPI_Allgatherv, B = %d: %d x %d B (exact)", batch, rows, row);
    const double total = double(rows) * row;
    report(what, gather, (ranks - 1) * (alpha + total / ranks / beta));
  }
  MPI_Finalize();
  return 0;
}
