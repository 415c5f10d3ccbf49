// lenet-mpi-pingpong: measures what the cost models of docs/strategies.md and docs/multihost.md
// need from a network.
//   1. ping-pong between ranks 0 and 1: the one-way time T(n) of n bytes (half a round trip) for
//      n = 8 B .. 64 KiB (lenet-mpi's messages are 9.4 KB), and from it T(n) = alpha + n / beta:
//      alpha = T(8 B), beta = the slope between 16 and 64 KiB (64 KiB / T(64 KiB) if noise makes
//      it <= 0). A least-squares line over all sizes would be pulled about by a shaped link's
//      burst, which lets the first few KiB through at once. Sizes up to 4 MiB follow for the
//      table while the model says a round trip takes under S / 8, so a slow link is not held up;
//   2. the collectives lenet-mpi runs once per step, at its sizes, beside the model's guess:
//      MPI_Allreduce of 2343 + 1 floats (recursive doubling: log2(P) (alpha + n / beta)) and
//      MPI_Allgatherv of B/16 chunk rows, --exact (ring: (P - 1) alpha + (P - 1) / P * N / beta).
// Usage: mpirun -np P lenet-mpi-pingpong [--seconds S]   (P >= 2; S per point, default 0.2)
// A bad flag, or a single rank: one line on stderr, exit status 2.
// Each point doubles its number of calls until one round takes S / 2 or more, so it lasts about
// S to 2 S on a fast link and on a 10 Mbit/s one. The last round's calls are timed one by one on
// rank 0. The median is what the protocol costs; the mean adds the rare calls that waited for a
// rank the operating system had descheduled, which is what training pays on a busy machine.
// Ends with "key = value" lines for experiments/bandwidth_sweep.sh and the calibration
// (experiments/slurm/calibration.py): allreduce_us is the mean, allreduce_median_us the median.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

#include "../common/gradient.hpp"
#include "mpi_backend.hpp"
#include "mpi_comm.hpp"

namespace {

constexpr int kFitMax = 1 << 16;  // the fit's largest size; beta is the slope from kFitMax / 4

struct Seconds {
  double median, mean;
  int calls;
};

struct Link {
  double alpha, beta;  // seconds, bytes per second
};

// Times `op` on rank 0, the same number of calls on every rank (a rank with a call more would
// wait for its partner forever): rank 0 decides when to stop doubling and tells the others.
Seconds time_calls(double budget, const std::function<void()>& op) {
  op();  // warm-up: connections, buffers
  std::vector<double> t;
  for (int done = 0; !done;) {
    t.resize(t.empty() ? 1 : 2 * t.size());
    MPI_Barrier(MPI_COMM_WORLD);  // all ranks start together
    for (double& s : t) {
      const double t0 = MPI_Wtime();
      op();
      s = MPI_Wtime() - t0;
    }
    // The cap keeps the times within 8 MB however long --seconds is.
    done = std::accumulate(t.begin(), t.end(), 0.0) >= budget / 2 || t.size() >= (1u << 20);
    MPI_Bcast(&done, 1, MPI_INT, 0, MPI_COMM_WORLD);
  }
  const int calls = static_cast<int>(t.size());
  const double mean = std::accumulate(t.begin(), t.end(), 0.0) / calls;
  std::nth_element(t.begin(), t.begin() + calls / 2, t.end());
  return {t[calls / 2], mean, calls};
}

// One-way seconds for n bytes between ranks 0 and 1: half a round trip.
Seconds one_way(int rank, int n, double budget) {
  std::vector<char> buf(n);
  const Seconds round_trip = time_calls(budget, [&] {
    if (rank == 0) {
      MPI_Send(buf.data(), n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(buf.data(), n, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(buf.data(), n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf.data(), n, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
  });
  return {round_trip.median / 2, round_trip.mean / 2, round_trip.calls};
}

// 1. The ping-pong table, and alpha and beta from its medians.
Link measure_link(int rank, double budget) {
  const bool root = rank == 0;
  if (root)
    std::printf("\n ping-pong 0 <-> 1    bytes  one way: median     mean     MB/s  calls\n");
  Link link{0, 0};
  double t_quarter = 0;  // T(kFitMax / 4)
  bool slope_ok = true;
  for (int n : {8, 64, 512, 4096, kFitMax / 4, kFitMax, 1 << 18, 1 << 20, 1 << 22}) {
    if (n > kFitMax && 2 * (link.alpha + n / link.beta) > budget / 8) {
      if (root) std::printf(" %25d  and larger left out: a round trip > --seconds / 8\n", n);
      break;
    }
    const Seconds t = one_way(rank, n, budget);
    if (root) {
      std::printf(" %25d %16.2f %8.2f %8.1f %6d\n", n, 1e6 * t.median, 1e6 * t.mean,
                  n / t.median / 1e6, t.calls);
    }
    if (n == 8) link.alpha = t.median;
    if (n == kFitMax / 4) t_quarter = t.median;
    if (n == kFitMax) {
      const double slope = (t.median - t_quarter) / (kFitMax - kFitMax / 4);
      slope_ok = slope > 0;
      link.beta = slope_ok ? 1 / slope : kFitMax / t.median;
      // Rank 0's figures for all: the ranks must agree on which sizes follow.
      MPI_Bcast(&link, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    }
  }
  if (root) {
    std::printf("\n alpha (latency)   = %.2f us     T(8 B)\n", 1e6 * link.alpha);
    std::printf(" beta  (bandwidth) = %.2f MB/s   %s\n", link.beta / 1e6,
                slope_ok ? "slope of T(n) from 16 to 64 KiB" : "64 KiB / T(64 KiB): slope <= 0");
  }
  return link;
}

// 2. lenet-mpi's collectives at its sizes, beside the model's guess. Returns the allreduce.
Seconds time_collectives(int rank, int ranks, Link link, double budget) {
  const auto report = [&](const char* what, const Seconds& t, double model) {
    if (rank == 0)
      std::printf(" %-44s %9.2f %8.2f %8.2f\n", what, 1e6 * t.median, 1e6 * t.mean, 1e6 * model);
  };
  if (rank == 0)
    std::printf("\n collective, once per step                       median     mean    model\n");
  const int log2p = static_cast<int>(std::ceil(std::log2(ranks)));
  std::vector<float> message(lenet::kParamCount + 1, 1.0f);
  const double n = message.size() * sizeof(float);
  const Seconds allreduce = time_calls(budget, [&] {
    MPI_Allreduce(MPI_IN_PLACE, message.data(), static_cast<int>(message.size()), MPI_FLOAT,
                  MPI_SUM, MPI_COMM_WORLD);
  });
  report("MPI_Allreduce, 9376 B (allreduce strategy)", allreduce,
         log2p * (link.alpha + n / link.beta));
  const int row = sizeof(lenet::ChunkSum);
  for (int batch : {32, 128}) {
    const int rows = (batch + lenet::kChunk - 1) / lenet::kChunk;
    std::vector<char> buf(static_cast<size_t>(rows) * row);
    std::vector<int> counts(ranks), displs(ranks);
    for (int r = 0; r < ranks; ++r) {
      const lenet::Range mine = lenet::share(rows, ranks, r);
      counts[r] = mine.size() * row;
      displs[r] = mine.begin * row;
    }
    const Seconds gather = time_calls(budget, [&] {
      MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf.data(), counts.data(), displs.data(),
                     MPI_BYTE, MPI_COMM_WORLD);
    });
    char what[64];
    std::snprintf(what, sizeof what, "MPI_Allgatherv, B = %d: %d x %d B (exact)", batch, rows, row);
    const double total = double(rows) * row;
    report(what, gather, (ranks - 1) * (link.alpha + total / ranks / link.beta));
  }
  return allreduce;
}

// The flags, the same on every rank. Returns -1 to go on, else the exit status (rank 0 printed
// the help or the one-line error).
int parse(int argc, char** argv, int rank, int ranks, double& budget) {
  CLI::App app("Latency and bandwidth between MPI ranks, and lenet-mpi's collectives.",
               "lenet-mpi-pingpong");
  app.add_option("--seconds", budget, "time per measured point (a slow link gets fewer calls)")
      ->check(CLI::Range(0.001, 60.0))
      ->capture_default_str();
  std::string error;
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    if (rank == 0) std::cout << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    error = e.what();
  }
  if (error.empty() && std::isnan(budget)) error = "--seconds: nan is not a number";
  if (error.empty() && ranks < 2) error = "the ping-pong needs 2 ranks or more (mpirun -np 2)";
  if (error.empty()) return -1;
  if (rank == 0) std::fprintf(stderr, "lenet-mpi-pingpong: error: %s\n", error.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  lenet::prefer_eager_messages();  // the transport lenet-mpi uses, measured
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  double budget = 0.2;
  const int code = parse(argc, argv, rank, ranks, budget);
  if (code >= 0) {
    MPI_Finalize();
    return code;
  }
  if (rank == 0) {
    std::printf("lenet-mpi-pingpong: %d ranks, %g s per point, times in microseconds\n", ranks,
                budget);
  }
  const Link link = measure_link(rank, budget);
  const Seconds allreduce = time_collectives(rank, ranks, link, budget);
  // For scripts (bandwidth_sweep.sh): "key = value", MB = 1e6 bytes.
  if (rank == 0) {
    std::printf("\nranks = %d\n", ranks);
    std::printf("alpha_us = %.3f\n", 1e6 * link.alpha);
    std::printf("beta_MBps = %.3f\n", link.beta / 1e6);
    std::printf("allreduce_bytes = %d\n",
                static_cast<int>((lenet::kParamCount + 1) * sizeof(float)));
    std::printf("allreduce_us = %.3f\n", 1e6 * allreduce.mean);
    std::printf("allreduce_median_us = %.3f\n", 1e6 * allreduce.median);
  }
  MPI_Finalize();
  return 0;
}
