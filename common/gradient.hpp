// A chunk's gradient sum, the first step of every CPU backend's training step (step.hpp): the
// kernels (kernels.hpp) compute each sample's gradient g_s, and the chunk's sum is
// ((0 + g_first) + g_first+1) + ... in sample order (chunk_gradient). Whoever computes a chunk
// (a thread, a rank), the bits are the same, because these functions are compiled once, here.
// This file is also the one caller of the kernels' layers, and the one place that times them
// (--timing).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "dataset.hpp"
#include "kernels.hpp"
#include "timer.hpp"

namespace lenet {

// The images of the chunk that a worker trains next: at most kChunk of an epoch's order.
struct NextChunk {
  const int32_t* images = nullptr;
  int n = 0;  // none: the worker trains no more chunks this epoch
};

// The chunk that starts at order[position]: its first kChunk images, fewer near the end.
inline NextChunk chunk_at(const std::vector<int32_t>& order, int position) {
  const int left = static_cast<int>(order.size()) - position;
  return left > 0 ? NextChunk{order.data() + position, std::min(left, kChunk)} : NextChunk{};
}

// The sum of the gradients of samples order[0..n) (n <= kChunk) into chunk_sum, in sample
// order. Returns the chunk's loss sum (double, in order). Adds each layer's time to `times`
// where it is not null. While it computes, the images of `next`, the chunk the caller's worker
// trains after this one, are fetched into the caches whole, a share before each group: so no
// image of the epoch is a cache miss but the first chunk's.
double chunk_gradient(Kernels& k, const float* params, const Dataset& data, const int32_t* order,
                      int n, NextChunk next, float* chunk_sum, LayerTimes* times);

// Forward only, for the evaluation: the loss and the predicted class of images first, ...,
// first + n - 1 of data (n <= kChunk) into losses[0..n) and predicted[0..n).
void forward_chunk(Kernels& k, const float* params, const Dataset& data, int first, int n,
                   float* losses, int* predicted);

// A chunk of one sample, for the tests and the micro-benchmarks: its forward pass (returns its
// loss), and its forward and backward passes (writes its gradient, 2343 floats, and returns its
// loss). Afterwards k.activations(0, ...) and k.predicted(0) are this sample's.
float forward_sample(Kernels& k, const float* params, const uint8_t* pixels, int label);
float train_sample(Kernels& k, const float* params, const uint8_t* pixels, int label, float* grad,
                   LayerTimes* times);

// acc[i] += g[i] for the 2343 parameters.
void accumulate(float* acc, const float* g);

// params[i] -= (lr / batch) * grad_sum[i] for i < count: the SGD step on a summed batch
// gradient, for all parameters or (count < kParamCount) a run of them that one thread updates.
void sgd_update(float* params, const float* grad_sum, float lr, int batch, int count = kParamCount);

}  // namespace lenet
