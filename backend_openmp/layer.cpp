// The layer strategy: lenet-serial's loop, one sample at a time, through LayerKernels, whose
// layers share their loops among the threads (layer_kernels.cpp). Every thread joins every layer of
// every sample, so each layer pays a fork and a join: a few microseconds against the few
// microseconds of work in most layers (docs/strategies.md). The per-layer timers are the team's
// wall time for each layer, read by the master thread around each parallel region.
#include "../common/step.hpp"
#include "openmp_backend.hpp"

namespace lenet {

void OpenMPBackend::train_layers_in_parallel(int first, int count, float lr) {
  sgd_step(*layer_chunks_, params_.v, *train_, order_, first, count, lr, chunks_, batch_grad_.v,
           loss_sum_, timing_ ? &times_ : nullptr);
}

}  // namespace lenet
