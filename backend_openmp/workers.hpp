// One set of per-sample buffers per OpenMP thread, shared by lenet-openmp's batch strategy and
// lenet-mpi's threads (--threads): each thread trains whole samples with its own kernels.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "../common/network.hpp"
#include "../common/tier.hpp"
#include "../common/timer.hpp"

namespace lenet {

// Everything one thread writes while it trains: its kernels (activations, deltas), one
// sample's gradient and its timers. alignas(64): two workers never share a cache line.
struct alignas(64) Worker {
  std::unique_ptr<SampleKernels> kernels;
  float sample_grad[kParamCount];
  LayerTimes times;
};

// One worker per thread of a team of `threads`. Each thread allocates its own kernels, so that
// its activations lie in that thread's malloc arena, away from the cache lines the other
// threads write. Throws lenet::Error (exit code 2) for an unknown tier, or when the OpenMP
// runtime gives fewer threads than asked for.
std::vector<Worker> make_workers(const std::string& tier, int threads);

}  // namespace lenet
