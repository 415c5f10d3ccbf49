// One set of kernels (their buffers) per OpenMP thread, for every team of threads that trains
// whole chunks with its own kernels: lenet-openmp's batch strategy and lenet-mpi's threads
// (--threads). Their evaluations (evaluate.hpp) run on it too.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "../kernels.hpp"
#include "../timer.hpp"

namespace lenet {

// Everything one thread writes while it trains: its kernels (activations, deltas, gradients)
// and its timers. alignas(64): two workers never share a cache line.
struct alignas(64) Worker {
  std::unique_ptr<Kernels> kernels;
  LayerTimes times;
  long long samples = 0;  // trained by this thread so far: lenet-mpi's proof of its slices
};

// One worker per thread of a team of `threads`. Each thread allocates its own kernels, so that
// its activations lie in that thread's malloc arena, away from the cache lines the other
// threads write. Throws lenet::Error (exit code 2) for unknown kernels, or when the OpenMP
// runtime gives fewer threads than asked for.
std::vector<Worker> make_workers(const std::string& kernels, int threads);

// Each worker's kernels, in thread order: the team's share of an evaluation (evaluate.hpp).
std::vector<Kernels*> kernels_of(const std::vector<Worker>& workers);

// The team's per-layer times: those of its slowest worker among the first `team` (the one
// whose times add up to the most; the others wait for it at the barrier), taken
// whole, so that they add up to at most the team's wall time. A maximum per layer could take
// each layer from another worker, and add up to more.
const LayerTimes& slowest_times(const std::vector<Worker>& workers, int team);

}  // namespace lenet
