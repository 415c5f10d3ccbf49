#include "workers.hpp"

#include <omp.h>

#include "../error.hpp"
#include "../kernels_registry.hpp"

namespace lenet {

std::vector<Worker> make_workers(const std::string& kernels, int threads) {
  std::vector<Worker> workers(threads);
  workers[0].kernels = make_kernels(kernels);  // throws lenet::Error for unknown kernels
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    if (t > 0) workers[t].kernels = make_kernels(kernels);
  }
  for (const Worker& w : workers) {
    if (!w.kernels) {
      throw Error("--threads: the OpenMP runtime gave fewer than " + std::to_string(threads) +
                      " threads (is OMP_THREAD_LIMIT set?)",
                  2);
    }
  }
  return workers;
}

std::vector<Kernels*> kernels_of(const std::vector<Worker>& workers) {
  std::vector<Kernels*> kernels;
  for (const Worker& w : workers)
    kernels.push_back(w.kernels.get());
  return kernels;
}

const LayerTimes& slowest_times(const std::vector<Worker>& workers, int team) {
  const LayerTimes* slowest = &workers[0].times;
  for (int w = 1; w < team; ++w) {
    if (workers[w].times.total() > slowest->total()) slowest = &workers[w].times;
  }
  return *slowest;
}

}  // namespace lenet
