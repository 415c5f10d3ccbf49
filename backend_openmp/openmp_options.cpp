#include "openmp_options.hpp"

#include <omp.h>

#include <cstdio>

#include "../common/cpu/cores.hpp"
#include "../common/gradient.hpp"
#include "openmp_backend.hpp"

namespace lenet {

void add_openmp_options(CLI::App& app, OpenMPOptions& o) {
  add_kernels_option(app, o.kernels);
  app.get_option("--kernels")->description("the layer kernels (--strategy layer: ref only)");
  // Recorded while parsing: the App (and its options) is gone when the backend is made.
  app.get_option("--kernels")->each([&o](const std::string&) { o.kernels_given = true; });
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

std::unique_ptr<Backend> make_openmp_backend(const OpenMPOptions& o, const Options& common) {
  const Strategy strategy = o.strategy == "layer" ? Strategy::kLayer : Strategy::kBatch;
  std::string kernels = o.kernels;
  if (strategy == Strategy::kLayer && !o.kernels_given && kernels != "ref") {
    kernels = "ref";
    if (!common.quiet) std::printf("lenet-openmp: --strategy layer runs the ref kernels\n");
  }
  // Threads that share a core, or that have no chunk, only wait: say so rather than run slowly
  // in silence.
  const int cores = usable_cores();
  if (cores > 0 && o.threads > cores) {
    std::fprintf(stderr,
                 "lenet-openmp: warning: --threads %d but this process may use %d core(s): the "
                 "threads will take turns (expect a slower run)\n",
                 o.threads, cores);
  }
  const int chunks = (common.batch + kChunk - 1) / kChunk;
  if (strategy == Strategy::kBatch && o.threads > chunks) {
    std::fprintf(stderr,
                 "lenet-openmp: warning: --threads %d but a batch of %d has %d chunk(s) of %d "
                 "samples: %d thread(s) will work (use a larger --batch or --strategy layer)\n",
                 o.threads, common.batch, chunks, kChunk, chunks);
  }
  return std::make_unique<OpenMPBackend>(kernels, strategy, o.threads);
}

}  // namespace lenet
