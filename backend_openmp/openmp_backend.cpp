#include "openmp_backend.hpp"

#include <algorithm>
#include <cstdlib>

#include "../common/cpu/evaluate.hpp"
#include "../common/error.hpp"
#include "../common/share.hpp"

namespace lenet {

const char* strategy_name(Strategy s) {
  return s == Strategy::kLayer ? "layer" : "batch";
}

OpenMPBackend::OpenMPBackend(const std::string& kernels, Strategy strategy, int threads)
    : strategy_(strategy), threads_(threads) {
  if (threads < 1) throw Error("--threads: must be at least 1, got " + std::to_string(threads), 2);
  if (strategy == Strategy::kLayer && kernels != "ref") {
    throw Error("--strategy layer: runs the ref kernels only, not --kernels " + kernels, 2);
  }
  workers_ = make_workers(kernels, threads);
  samples_before_.resize(threads);
  if (strategy == Strategy::kLayer) {
    // One sample at a time, through the per-sample adapter.
    auto layer = std::make_unique<LayerKernels>(threads_);
    layer_kernels_ = layer.get();
    layer_chunks_ = std::make_unique<PerSample>(std::move(layer));
  }
}

BackendInfo OpenMPBackend::info() const {
  BackendInfo b;
  b.name = "openmp";
  b.kernels = workers_[0].kernels->name();
  b.strategy = strategy_name(strategy_);
  b.threads = threads_;
  b.threads_worked = most_working_;
  // How the work was shared among the threads (the lab kit checks it: a thread with nothing
  // to do shows as "0 to"), and in how many calls every thread had a share (a serial batch run by
  // another thread each time sums like a shared one): the batch strategy's samples per thread of
  // its largest team, per batch; the layer strategy's C1 rows and maps per thread, per sample
  // (labs 1 and 2).
  if (strategy_ == Strategy::kBatch && most_working_ > 0) {
    std::vector<long long> samples;
    for (int t = 0; t < most_working_; ++t)
      samples.push_back(workers_[t].samples);
    b.extra.emplace_back("Samples computed",
                         shared_out(samples, "thread") + batch_calls_.out("thread"));
  }
  if (strategy_ == Strategy::kLayer) {
    b.extra.emplace_back("C1 rows computed", layer_kernels_->c1_rows_shared());
    b.extra.emplace_back("C1 maps computed", layer_kernels_->c1_maps_shared());
  }
  // Thread placement and the wait policy change the timings, so the summary shows them.
  for (const char* name : {"OMP_PROC_BIND", "OMP_PLACES", "OMP_WAIT_POLICY", "GOMP_SPINCOUNT"}) {
    if (const char* value = std::getenv(name)) b.extra.emplace_back(name, value);
  }
  return b;
}

void OpenMPBackend::set_params(const std::vector<float>& params) {
  std::copy(params.begin(), params.end(), params_.v);
}

std::vector<float> OpenMPBackend::get_params() {
  return std::vector<float>(params_.v, params_.v + kParamCount);
}

void OpenMPBackend::bind_data(const Dataset& train, const Dataset& test) {
  train_ = &train;
  test_ = &test;
}

void OpenMPBackend::begin_epoch(const std::vector<int32_t>& order) {
  order_ = order;
  loss_sum_ = 0;
}

void OpenMPBackend::train_batch(int first, int count, float lr) {
  if (strategy_ == Strategy::kBatch) {
    train_chunks_in_parallel(first, count, lr);
  } else {
    train_layers_in_parallel(first, count, lr);
  }
}

// Both strategies evaluate the same way: the test images shared among the threads in chunks of
// kChunk, each thread with its own kernels, and the losses added in image order, as lenet-serial
// adds them (common/cpu/evaluate.hpp).
EvalResult OpenMPBackend::evaluate() {
  return lenet::evaluate(kernels_of(workers_), params_.v, *test_, test_losses_);
}

}  // namespace lenet
