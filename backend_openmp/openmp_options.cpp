#include "openmp_options.hpp"

#include <omp.h>

#include "openmp_backend.hpp"

namespace lenet {

void add_openmp_options(CLI::App& app, OpenMPOptions& o) {
  add_tier_option(app, o.tier);
  // Recorded while parsing: the App (and its options) is gone when the backend is made.
  app.get_option("--kernels")->each([&o](const std::string&) { o.tier_given = true; });
  // omp_get_max_threads() is OMP_NUM_THREADS when that is set, else the number of cores.
  o.threads = omp_get_max_threads();
  app.add_option("--threads", o.threads, "OpenMP threads (default: OMP_NUM_THREADS, else cores)")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  app.add_option("--strategy", o.strategy,
                 "batch: chunks of 16 samples on different threads; layer: one sample at a "
                 "time, each layer's loops shared (ref kernels only)")
      ->check(CLI::IsMember({"batch", "layer"}))
      ->capture_default_str();
}

std::unique_ptr<Backend> make_openmp_backend(const OpenMPOptions& o) {
  const Strategy strategy = o.strategy == "layer" ? Strategy::kLayer : Strategy::kBatch;
  const std::string tier = strategy == Strategy::kLayer && !o.tier_given ? "ref" : o.tier;
  return std::make_unique<OpenMPBackend>(tier, strategy, o.threads);
}

}  // namespace lenet
