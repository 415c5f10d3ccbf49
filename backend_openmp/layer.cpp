// The layer strategy: lenet-serial's loop, one sample at a time, through LayerKernels, whose
// layers share their loops among the threads (layer_kernels.cpp). Every thread joins every layer of
// every sample, so each layer pays a fork and a join: a few microseconds against the few
// microseconds of work in most layers (docs/strategies.md). The per-layer timers are the team's
// wall time for each layer, read by the master thread around each parallel region.
#include <algorithm>

#include "../common/gradient.hpp"
#include "openmp_backend.hpp"

namespace lenet {

void OpenMPBackend::train_layers_in_parallel(int first, int count, float lr) {
  LayerTimes* t = timing_ ? &times_ : nullptr;
  float* grad = batch_grad_.v;
  float* chunk_grad = chunks_[0].grad;
  std::fill(grad, grad + kParamCount, 0.0f);
  for (int c = first; c < first + count; c += kChunk) {
    const int n = std::min(kChunk, first + count - c);
    loss_sum_ += chunk_gradient(*layer_kernels_, params_.v, *train_, order_.data() + c, n,
                                image_at(order_, c + n), chunk_grad, workers_[0].sample_grad, t);
    const double t0 = now_seconds();
    accumulate(grad, chunk_grad);
    if (t) t->reduce += now_seconds() - t0;
  }
  const double t0 = now_seconds();
  sgd_update(params_.v, grad, lr, count);
  if (t) t->update += now_seconds() - t0;
}

}  // namespace lenet
