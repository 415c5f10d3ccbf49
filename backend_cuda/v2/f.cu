// Version 2, F for a whole batch: fully connected 216 -> 10, softmax and cross-entropy.
//   forward:  z3[k] = b3[k] + sum_n W3[k][n] * a2[n]    p = softmax(z3)   loss = -log p[label]
//   backward: d3[k] = p[k] - (k == label)
//             g2[n] = sum_k W3[k][n] * d3[k]            d2 = g2 * a2 * (1 - a2)
//             dW3[k][n] = sum_{samples} d3[k] * a2[n]   db3[k] = sum_{samples} d3[k]
//             then W3, b3 -= scale * gradient
// Forward: one block of 10 warps per sample; warp k computes the dot product z3[k] (lanes stride
// over n, warp_sum adds), then thread 0 the softmax, loss and prediction.
// d2: one thread per (sample, n). Weight gradient: one warp per parameter (2170 warps); its lanes
// stride over the batch's samples and warp_sum adds; lane 0 updates the parameter.
#include "../check.hpp"
#include "../device_math.cuh"
#include "layers.hpp"

namespace lenet::cuda::v2 {
namespace {

constexpr int kForwardThreads = 32 * kClasses;  // one warp per logit
constexpr int kThreads = 256;
static_assert(kB3 == kW3 + kW3Size, "b3 follows W3");

__global__ void __launch_bounds__(kForwardThreads)
    f_forward_kernel(const float* params, const float* a2, Samples b, float* p, float* loss,
                     int* hit) {
  __shared__ float z[kClasses];
  const int s = blockIdx.x, k = threadIdx.x / 32, lane = threadIdx.x % 32;
  const float* in = a2 + static_cast<size_t>(s) * kS1Size;
  const float* W3 = params + kW3 + k * kS1Size;
  float sum = 0.0f;
  for (int n = lane; n < kS1Size; n += 32)
    sum += W3[n] * in[n];
  sum = warp_sum(sum);
  if (lane == 0) z[k] = params[kB3 + k] + sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    const int label = b.label(s);
    int predicted;
    loss[s] = softmax_loss(z, label, p + s * kClasses, &predicted);
    hit[s] = predicted == label;
  }
}

__global__ void f_delta_kernel(const float* params, const float* a2, const float* p, Samples b,
                               float* d2) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= b.count * kS1Size) return;
  const int s = t / kS1Size, n = t % kS1Size;
  const int label = b.label(s);
  float g2 = 0.0f;
  for (int k = 0; k < kClasses; ++k) {
    g2 += params[kW3 + k * kS1Size + n] * logit_grad(p + s * kClasses, label, k);
  }
  d2[t] = g2 * a2[t] * (1.0f - a2[t]);
}

// Warp w owns parameter kW3 + w: W3[k][n] for w < 2160, b3[w - 2160] after that. The grid has a
// few warps more than parameters; they leave whole, before any shuffle.
__global__ void f_backward_update_kernel(float* params, const float* a2, const float* p, Samples b,
                                         float scale) {
  const int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (w >= kW3Size + kB3Size) return;
  const bool bias = w >= kW3Size;
  const int k = bias ? w - kW3Size : w / kS1Size, n = w % kS1Size;  // n unused for a bias
  float sum = 0.0f;
  for (int s = lane; s < b.count; s += 32) {
    const float d3 = logit_grad(p + s * kClasses, b.label(s), k);
    sum += bias ? d3 : d3 * a2[s * kS1Size + n];
  }
  sum = warp_sum(sum);
  if (lane == 0) params[kW3 + w] -= scale * sum;
}

}  // namespace

void f_forward(const float* params, const float* a2, const Samples& b, float* p, float* loss,
               int* hit, cudaStream_t stream) {
  f_forward_kernel<<<b.count, kForwardThreads, 0, stream>>>(params, a2, b, p, loss, hit);
  CUDA_CHECK_LAUNCH();
}

void f_backward_delta(const float* params, const float* a2, const float* p, const Samples& b,
                      float* d2, cudaStream_t stream) {
  f_delta_kernel<<<blocks_for(b.count * kS1Size, kThreads), kThreads, 0, stream>>>(params, a2, p, b,
                                                                                   d2);
  CUDA_CHECK_LAUNCH();
}

void f_backward_update(float* params, const float* a2, const float* p, const Samples& b,
                       float scale, cudaStream_t stream) {
  const int warps = kW3Size + kB3Size;
  f_backward_update_kernel<<<blocks_for(32LL * warps, kThreads), kThreads, 0, stream>>>(
      params, a2, p, b, scale);
  CUDA_CHECK_LAUNCH();
}

}  // namespace lenet::cuda::v2
