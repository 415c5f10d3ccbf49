// The one fixed way every CPU backend turns samples into an SGD step (docs/network.md,
// "Bit-identical CPU backends"):
//   1. each sample's gradient g_s is computed whole by the kernels (train_sample);
//   2. the batch is cut into chunks of kChunk consecutive samples; a chunk's sum is
//      ((0 + g_first) + g_first+1) + ... in sample order (chunk_gradient; kernels that compute
//      a chunk's samples side by side, train_chunk, add them in the same order);
//   3. the batch gradient is the chunk sums added in chunk order (accumulate);
//   4. params -= (lr / B) * G (sgd_update).
// Whoever computes a chunk (a thread, a rank), the bits are the same, because these functions
// are compiled once, here, and the tree does not depend on the thread or rank count.
#pragma once

#include <cstdint>
#include <vector>

#include "dataset.hpp"
#include "kernels.hpp"
#include "timer.hpp"

namespace lenet {

// Forward one sample; returns its loss. Times each layer into `times` when it is not null.
float forward_sample(SampleKernels& k, const float* params, const uint8_t* pixels, int label,
                     LayerTimes* times);

// Forward and backward one sample; writes its gradient (2343 floats) and returns its loss.
float train_sample(SampleKernels& k, const float* params, const uint8_t* pixels, int label,
                   float* grad, LayerTimes* times);

// Sum of the gradients of samples order[0..n) (n <= kChunk) into chunk_sum, in sample order;
// sample_grad is scratch of kParamCount floats. Returns the chunk's loss sum (double, in order).
// Each image is fetched into the caches while the sample before it computes; image `next`
// (-1: none) while the last one does: the image that the caller's worker trains after this
// chunk, so that no image of the epoch is a cache miss.
double chunk_gradient(SampleKernels& k, const float* params, const Dataset& data,
                      const int32_t* order, int n, int next, float* chunk_sum, float* sample_grad,
                      LayerTimes* times);

// Forward only, for the evaluation: the loss and the predicted class of images first, ...,
// first + n - 1 of data (n <= kChunk) into losses[0..n) and predicted[0..n), a chunk at once
// where the kernels can (SampleKernels::forward_chunk), else one at a time.
void forward_chunk(SampleKernels& k, const float* params, const Dataset& data, int first, int n,
                   float* losses, int* predicted);

// order[position], or -1 past the end: chunk_gradient's `next` near the end of an epoch.
inline int image_at(const std::vector<int32_t>& order, int position) {
  return position < static_cast<int>(order.size()) ? order[position] : -1;
}

// acc[i] += g[i] for the 2343 parameters.
void accumulate(float* acc, const float* g);

// params[i] -= (lr / batch) * grad_sum[i] for i < count: the SGD step on a summed batch
// gradient, for all parameters or (count < kParamCount) a run of them that one thread updates.
void sgd_update(float* params, const float* grad_sum, float lr, int batch, int count = kParamCount);

// One SGD step on order[first, first + count), its chunks one after the other on this thread:
// steps 2 to 4 above. Adds each chunk's loss to loss_sum, in chunk order. batch_grad,
// chunk_grad and sample_grad are scratch of kParamCount floats each. lenet-serial's step, and
// lenet-openmp's layer strategy's, whose kernels share each layer's loops among the threads.
void sgd_step(SampleKernels& k, float* params, const Dataset& data,
              const std::vector<int32_t>& order, int first, int count, float lr, float* batch_grad,
              float* chunk_grad, float* sample_grad, double& loss_sum, LayerTimes* times);

}  // namespace lenet
