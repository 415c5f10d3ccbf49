// Version 1, F: fully connected 216 -> 10, then softmax and cross-entropy.
//   forward:  z3[k] = b3[k] + sum_n W3[k][n] * a2[n]    p = softmax(z3)   loss = -log p[label]
//   backward: d3[k] = p[k] - (k == label)
//             dW3[k][n] = d3[k] * a2[n]                 db3[k] = d3[k]
//             g2[n] = sum_k W3[k][n] * d3[k]            d2 = g2 * a2 * (1 - a2)
// Forward: one block of one warp; thread k < 10 computes z3[k], then thread 0 the softmax, the
// loss and the prediction, added to the tally (launches run in order, so no atomics are needed).
// Backward: one thread per gradient entry of W3 and b3 (2170), one thread per d2[n] (216).
#include "../check.hpp"
#include "../device_math.cuh"
#include "layers.hpp"

namespace lenet::cuda::v1 {
namespace {

constexpr int kThreads = 256;
static_assert(kClasses <= 32, "one warp computes the logits");

__global__ void f_forward_kernel(const float* params, const float* a2, Samples b, int s, float* p,
                                 Tally* tally) {
  __shared__ float z[kClasses];
  const int k = threadIdx.x;
  if (k < kClasses) {
    const float* W3 = params + kW3 + k * kS1Size;
    float sum = params[kB3 + k];
    for (int n = 0; n < kS1Size; ++n)
      sum += W3[n] * a2[n];
    z[k] = sum;
  }
  __syncthreads();
  if (k == 0) {
    const int label = b.label(s);
    int predicted;
    tally->loss_sum += softmax_loss(z, label, p, &predicted);
    tally->correct += predicted == label;
  }
}

// Thread t computes gradient entry kW3 + t: W3[k][n] for t < 2160, b3[t - 2160] after that (b3
// follows W3).
__global__ void f_weight_kernel(const float* a2, const float* p, Samples b, int s, float* grad) {
  static_assert(kB3 == kW3 + kW3Size, "b3 follows W3");
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= kW3Size + kB3Size) return;
  const bool bias = t >= kW3Size;
  const int k = bias ? t - kW3Size : t / kS1Size;
  const float d3 = logit_grad(p, b.label(s), k);
  grad[kW3 + t] += bias ? d3 : d3 * a2[t % kS1Size];
}

__global__ void f_delta_kernel(const float* params, const float* a2, const float* p, Samples b,
                               int s, float* d2) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= kS1Size) return;
  const int label = b.label(s);
  float g2 = 0.0f;
  for (int k = 0; k < kClasses; ++k)
    g2 += params[kW3 + k * kS1Size + n] * logit_grad(p, label, k);
  d2[n] = g2 * a2[n] * (1.0f - a2[n]);
}

}  // namespace

void f_forward(const float* params, const float* a2, const Samples& b, int s, float* p,
               Tally* tally, cudaStream_t stream) {
  f_forward_kernel<<<1, 32, 0, stream>>>(params, a2, b, s, p, tally);
  CUDA_CHECK_LAUNCH();
}

void f_backward(const float* params, const float* a2, const float* p, const Samples& b, int s,
                float* grad, float* d2, cudaStream_t stream) {
  f_weight_kernel<<<blocks_for(kW3Size + kB3Size, kThreads), kThreads, 0, stream>>>(a2, p, b, s,
                                                                                    grad);
  CUDA_CHECK_LAUNCH();
  f_delta_kernel<<<blocks_for(kS1Size, kThreads), kThreads, 0, stream>>>(params, a2, p, b, s, d2);
  CUDA_CHECK_LAUNCH();
}

}  // namespace lenet::cuda::v1
